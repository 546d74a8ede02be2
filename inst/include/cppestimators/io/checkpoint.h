// Checkpoints, the public entry header: include this one. The pieces, one
// concern each:
//   checkpoint_format.h   our binary checkpoint file format (TensorRecord,
//                         CheckpointData, encode/decode, read/write a file)
//   checkpoint_index.h    TensorFlow's text index "<dir>/checkpoint"
//                         (CheckpointState, read/write, latest_checkpoint)
//   checkpoint_manager.h  CheckpointManager: saving into a model directory
//                         with rotation (max_to_keep)
// and the shared io/ helpers they use: little_endian.h (the byte codec),
// atomic_file.h (crash-safe writes, whole-file reads) and crc32c.h, which
// this header includes too (callers check a checkpoint's CRC, for one).
#pragma once
#include "atomic_file.h"
#include "checkpoint_format.h"
#include "checkpoint_index.h"
#include "checkpoint_manager.h"
#include "crc32c.h"
#include "little_endian.h"
