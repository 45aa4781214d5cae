# Mask R-CNN's end-to-end runs and checks, included by tests/e2e/CMakeLists.txt (which defines the
# functions).
target_sources(mlh_e2e_tests PRIVATE ${PROJECT_SOURCE_DIR}/tests/e2e/maskrcnn_mini_test.cpp
  ${PROJECT_SOURCE_DIR}/tests/e2e/maskrcnn_cli_test.cpp)
# One rank to both targets (box AP and mask AP, the mini config's); then two epochs (an evaluation
# after each) on two ranks and on one rank pinned to one core (one thread, as each of the two ranks
# has), which must train alike: the same two gradient shards per global batch. Those two train on 64
# of the mini's images (8 or 9 steps an epoch, as the aspect groups fall): their subject is the
# shards' arithmetic, and the mini's own 512-image epochs take minutes each on 2 cores.
mlh_add_mini_run(maskrcnn np1_seed1 RANKS 1 SEED 1 CHECK_LOG TIMEOUT 900 ARGS --set write_detections=true)
set(maskrcnn_two_epochs --set synthetic_train_images=64 --set synthetic_val_images=16 --set max_epochs=2)
mlh_add_mini_run(maskrcnn np2_seed1 RANKS 2 SEED 1 SHORT TIMEOUT 600 ARGS ${maskrcnn_two_epochs})
mlh_add_mini_run(maskrcnn np1_one_core_seed1 RANKS 1 SEED 1 SHORT TIMEOUT 600 PREFIX taskset -c 0
  ARGS ${maskrcnn_two_epochs})
mlh_require_fixtures(FIXTURES maskrcnn_np1
  TESTS e2e.MaskRcnnMini.ReachesBothTargetsOnOneRank
    e2e.MaskRcnnBesidePublished.ScoreAndReportShowTheMiniBesideGooglesV06Logs)
mlh_require_fixtures(FIXTURES maskrcnn_np2 maskrcnn_np1_one_core TESTS e2e.MaskRcnnMini.TwoRanksMatchOneRank)
# The detections written on one rank (the run to the targets above) and on two ranks (gathered on
# rank 0): two epochs of 20 steps, every proposal kept (after 16 steps every box AP was still 0),
# which MaskRcnnDetections scores again.
mlh_add_mini_run(maskrcnn np2_detections_seed1 RANKS 2 SEED 1 SHORT TIMEOUT 600 ARGS --set synthetic_train_images=160
  --set synthetic_val_images=16 --set max_epochs=2 --set score_threshold=0.0 --set write_detections=true)
mlh_require_fixtures(FIXTURES maskrcnn_np1 maskrcnn_np2_detections
  TESTS e2e.MaskRcnnDetections.WrittenDetectionsScoreAsLogged)
# A small generated set (32 training images: 4 steps an epoch) with targets out of reach, for the
# checkpoint checks: resumed after epoch 1 of 2, and the seed's first epoch.
set(maskrcnn_small --set synthetic_train_images=32 --set synthetic_val_images=8 --set target_box_ap=0.99
  --set target_mask_ap=0.99)
mlh_add_resume_checks(maskrcnn ARGS ${maskrcnn_small} --set max_epochs=2)
# The seed's first epoch on 160 images (20 steps), every proposal kept as a detection: after the 4
# steps of the set above, each seed's boxes miss every object (AP 0 for both seeds), which would not
# show the weights.
mlh_add_seed_check(maskrcnn ARGS --set synthetic_train_images=160 --set synthetic_val_images=16
  --set target_box_ap=0.99 --set target_mask_ap=0.99 --set max_epochs=1 --set score_threshold=0.0)
# Two ranks against one rank pinned to one core, the first epoch of the small set above: every weight
# bit for bit, BatchNorm's running statistics averaged over the ranks and within 0.5 of the one rank's
# (seen: 0.46).
mlh_add_rank_batchnorm_check(maskrcnn BOUND 0.5 ARGS ${maskrcnn_small} --set max_epochs=1)
