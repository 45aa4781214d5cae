# SSD's end-to-end runs and checks, included by tests/e2e/CMakeLists.txt (which defines the functions).
target_sources(mlh_e2e_tests PRIVATE ${PROJECT_SOURCE_DIR}/tests/e2e/ssd_mini_test.cpp
  ${PROJECT_SOURCE_DIR}/tests/e2e/ssd_cli_test.cpp)
# One rank to the target; then the first two epochs on two ranks and on one rank pinned to one core
# (one thread, as each of the two ranks has), which must train alike.
mlh_add_mini_run(ssd np1_seed1 RANKS 1 SEED 1 CHECK_LOG TIMEOUT 900 ARGS --set write_detections=true)
set(ssd_two_epochs --set max_epochs=2 --set eval_epochs=[2])
mlh_add_mini_run(ssd np2_seed1 RANKS 2 SEED 1 SHORT TIMEOUT 600 ARGS ${ssd_two_epochs} --set write_detections=true)
mlh_add_mini_run(ssd np1_one_core_seed1 RANKS 1 SEED 1 SHORT TIMEOUT 600 PREFIX taskset -c 0 ARGS ${ssd_two_epochs})
mlh_require_fixtures(FIXTURES ssd_np1
  TESTS e2e.SsdMini.ReachesItsTargetMapOnOneRank e2e.SsdBesidePublished.ScoreAndReportShowTheMiniBesideNvidiasV07Logs)
mlh_require_fixtures(FIXTURES ssd_np2 ssd_np1_one_core TESTS e2e.SsdMini.TwoRanksMatchOneRank)
# Each epoch's written detections, scored again by `coco-eval`, give the logged mAP (ssd_mini_test.cpp).
mlh_require_fixtures(FIXTURES ssd_np1 ssd_np2 TESTS e2e.SsdDetections.WrittenDetectionsScoreAsLogged)
set(ssd_small --set synthetic_train_images=128 --set synthetic_val_images=32 --set target_map=0.99)
mlh_add_resume_checks(ssd ARGS ${ssd_small} --set max_epochs=2 --set eval_epochs=[1,2])
mlh_add_seed_check(ssd ARGS ${ssd_small} --set max_epochs=1 --set eval_epochs=[1])
# Two ranks against one rank pinned to one core, the first epoch of the small set above: every weight
# bit for bit, BatchNorm's running statistics within 0.5 of the one rank's (seen: 0.43).
mlh_add_rank_batchnorm_check(ssd BOUND 0.5 ARGS ${ssd_small} --set max_epochs=1 --set eval_epochs=[1])
