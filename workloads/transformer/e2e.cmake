# The Transformer's end-to-end runs and checks, included by tests/e2e/CMakeLists.txt (which defines the
# functions).
target_sources(mlh_e2e_tests PRIVATE ${PROJECT_SOURCE_DIR}/tests/e2e/transformer_mini_test.cpp
  ${PROJECT_SOURCE_DIR}/tests/e2e/transformer_cli_test.cpp)
mlh_add_mini_run(transformer np1_seed1 RANKS 1 SEED 1 CHECK_LOG TIMEOUT 900)
# Two ranks, and one rank pinned to one core (one thread, as each of the two ranks has), for the
# first epoch of a smaller corpus only: the one-rank run above shows the way to the target. Their
# checkpoints hold the weights that must be alike.
set(transformer_first_epoch_small --set max_epochs=1 --set synthetic_pairs=8000 --set synthetic_test_pairs=200
  --checkpoint-every 1)
mlh_add_mini_run(transformer np2_seed1 RANKS 2 SEED 1 SHORT TIMEOUT 900 ARGS ${transformer_first_epoch_small})
mlh_add_mini_run(transformer np1_one_core_seed1 RANKS 1 SEED 1 SHORT TIMEOUT 900 PREFIX taskset -c 0
  ARGS ${transformer_first_epoch_small})
mlh_require_fixtures(FIXTURES transformer_np1 transformer_np2 transformer_np1_one_core
  TESTS e2e.TransformerMini.ReachesItsBleuTargetFarAboveCopyingTheSource e2e.TransformerMini.TwoRanksMatchOneRank)
mlh_add_rank_weights_check(transformer ONE transformer_np1_one_core_seed1 MANY transformer_np2_seed1 RANKS 2
  FIXTURES transformer_np2 transformer_np1_one_core)
set(transformer_small --set synthetic_dev_pairs=50 --set target_bleu=99)
mlh_add_resume_checks(transformer ARGS ${transformer_small} --set synthetic_pairs=1500 --set synthetic_test_pairs=50
  --set max_epochs=2)
mlh_add_seed_check(transformer ARGS ${transformer_small} --set synthetic_pairs=3000 --set synthetic_test_pairs=100
  --set max_epochs=1)
