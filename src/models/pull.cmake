# Pulling models from the Hugging Face hub: spec parsing and file choice, the
# hub client, the downloader and PullService. A library of its own so
# zest_models (reader, store, registry) stays free of network code.
add_library(zest_pull STATIC
  pull_spec.cc
  file_selection.cc
  transfer_policy.cc
  http_fetch.cc
  hub_client.cc
  blob_transfer.cc
  downloader.cc
  pull_service.cc)
target_link_libraries(zest_pull PUBLIC zest_models zest_core OpenSSL::Crypto
                      PRIVATE CURL::libcurl spdlog::spdlog nlohmann_json::nlohmann_json Threads::Threads)

zest_test(pull_test SOURCES pull_spec_test.cc LIBS zest_pull)
