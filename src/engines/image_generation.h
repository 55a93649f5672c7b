// Image generation, engine-neutral: what the API asks of an image engine
// (ImageJob) and what it gets back (GeneratedImages), so that api/ knows
// OpenAI's shapes and engines/ knows each engine's (EngineAdapter's
// ImageCall and ReadImages). Engines are asked for PNG; other formats are
// made from it by zest (image_converter.h). Plain values.
#pragma once

#include <string>
#include <vector>

namespace zest::engines {

struct ImageJob {
  std::string prompt;
  int n = 1;       // images to make
  int width = 0;   // pixels; 0 = the engine's default
  int height = 0;  // pixels; 0 = the engine's default
};

struct GeneratedImages {
  std::string output_format;     // as the engine says ("png")
  std::vector<std::string> b64;  // each image's encoded bytes, base64
};

}  // namespace zest::engines
