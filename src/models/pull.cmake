# Pulling models from the Hugging Face hub: spec parsing and file choice, the
# hub client, the downloader and PullService. A library of its own so
# zest_models (reader, store, registry) stays free of network code.
add_library(zest_pull STATIC
  curl_library.cc
  pull_spec.cc
  file_selection.cc
  transfer_policy.cc
  http_fetch.cc
  hub_client.cc
  blob_transfer.cc
  downloader.cc
  pull_service.cc
  cluster_manifest.cc)
# libcurl's headers only: the library is loaded when first used (curl_library.h).
target_include_directories(zest_pull PUBLIC ${CURL_INCLUDE_DIRS})
target_link_libraries(zest_pull PUBLIC zest_models zest_core OpenSSL::Crypto ${CMAKE_DL_LIBS}
                      PRIVATE spdlog::spdlog nlohmann_json::nlohmann_json Threads::Threads
                              PkgConfig::TOMLPP)

zest_test(pull_test SOURCES pull_spec_test.cc cluster_manifest_test.cc LIBS zest_pull)
