// The SSD training loss (spec/workloads.md §3), as the MLPerf reference's Loss (base_model.py, T05-T07).
// Per image, with P = the positives (glabel > 0) and p = |P|:
//   localisation: smooth-L1 (beta 1) summed over the 4 coordinates of the positives;
//   confidence: cross-entropy over the positives, plus over the default boxes whose rank is below
//     min(3p, D) when ranked by cross-entropy with the positives' zeroed, descending (equal values:
//     lower index first). Positives rank after every negative with a non-zero loss, so this is the 3p
//     hardest negatives; but when 3p exceeds the D - p negatives the ranking reaches the positives, and
//     those count twice, exactly as in the reference;
//   (localisation + confidence) / p, or 0 for an image with no positive.
// The result is the mean over the batch: a scalar of ploc's dtype on its device, differentiable in
// ploc and plabel. The reference encodes the targets inside the loss; here gloc is already encoded.
#pragma once

#include <torch/types.h>

namespace mlh::common {

// ploc [N, 4, D] predicted offsets; plabel [N, C, D] logits (class 0 = background); gloc [N, 4, D]
// target offsets (encode_boxes of the matched boxes, permuted to [N, 4, D]); glabel [N, D] int64.
torch::Tensor ssd_loss(const torch::Tensor& ploc, const torch::Tensor& plabel, const torch::Tensor& gloc,
                       const torch::Tensor& glabel);

}  // namespace mlh::common
