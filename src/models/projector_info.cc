// Reads a projector's metadata (llama.cpp tools/mtmd/clip-impl.h names the
// keys; its converter writes general.architecture "clip", general.type
// "mmproj").
#include "models/projector_info.h"

#include <string>

namespace zest::models {
namespace {

bool IsProjector(const GgufFile& file) {
  return file.Architecture() == "clip" || file.GetString("general.type") == "mmproj";
}

// The width it feeds the text model. llama.cpp's converter writes the text
// model's width as projection_dim for every projector; LLaVA files of the
// older converter wrote CLIP's own there instead, so for the "mlp" type the
// output layer's rows (mm.2.weight, what the engine itself compares) win.
uint64_t EmbeddingLength(const GgufFile& file, const std::string& vision_type) {
  if (vision_type == "mlp") {
    const GgufTensorInfo* output = file.FindTensor("mm.2.weight");
    if (output != nullptr && output->dims.size() >= 2) return output->dims[1];
  }
  const uint64_t vision = file.GetUint("clip.vision.projection_dim");
  return vision != 0 ? vision : file.GetUint("clip.audio.projection_dim");
}

}  // namespace

Result<ProjectorInfo> DescribeProjector(const GgufFile& file) {
  if (!IsProjector(file)) {
    const std::string arch = file.Architecture();
    return InvalidArgument("not a multimodal projector (general.architecture '" + arch + "')");
  }
  ProjectorInfo info;
  info.name = file.GetString("general.name");
  info.has_vision = file.GetBool("clip.has_vision_encoder");
  info.has_audio = file.GetBool("clip.has_audio_encoder");
  info.has_gen_audio = file.GetBool("clip.has_gen_audio_encoder");
  if (!info.has_vision && !info.has_audio && !info.has_gen_audio) {
    return InvalidArgument("projector '" + info.name +
                           "' declares no vision, audio or audio generation encoder");
  }
  // One type for the file, or one per encoder where it has several.
  const std::string shared = file.GetString("clip.projector_type");
  if (info.has_gen_audio)
    info.gen_audio_projector_type = file.GetString("clip.gen.audio.projector_type", shared);
  if (info.has_vision)
    info.vision_projector_type = file.GetString("clip.vision.projector_type", shared);
  if (info.has_audio)
    info.audio_projector_type = file.GetString("clip.audio.projector_type", shared);
  info.embedding_length = EmbeddingLength(file, info.vision_projector_type);
  if (info.has_vision) {
    info.image_size = file.GetUint("clip.vision.image_size");
    info.patch_size = file.GetUint("clip.vision.patch_size");
  }
  for (const GgufTensorInfo& t : file.tensors) info.tensor_bytes += t.bytes;
  info.synthetic = file.GetBool("zest.synthetic");
  return info;
}

Status CheckProjectorFits(const ProjectorInfo& projector, uint64_t model_embedding_length) {
  if (projector.embedding_length == 0 || projector.embedding_length == model_embedding_length) {
    return Status::Ok();
  }
  return InvalidArgument("projector '" + projector.name + "' produces embeddings of width " +
                         std::to_string(projector.embedding_length) +
                         " but the model's embedding length is " +
                         std::to_string(model_embedding_length));
}

}  // namespace zest::models
