// The one translation unit that compiles Asio and Beast (separate compilation
// keeps every other file that includes them quick to build).
#include <boost/asio/impl/src.hpp>
#include <boost/asio/ssl/impl/src.hpp>
#include <boost/beast/src.hpp>
