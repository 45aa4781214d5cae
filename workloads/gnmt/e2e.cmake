# GNMT's end-to-end runs and checks, included by tests/e2e/CMakeLists.txt (which defines the functions).
target_sources(mlh_e2e_tests PRIVATE ${PROJECT_SOURCE_DIR}/tests/e2e/gnmt_mini_test.cpp
  ${PROJECT_SOURCE_DIR}/tests/e2e/gnmt_cli_test.cpp)
target_sources(mlh_e2e_checkpoint_tests PRIVATE ${PROJECT_SOURCE_DIR}/tests/e2e/gnmt_ranks_test.cpp)
# The command users type, under mpirun with four ranks (oversubscribed here), to the target: a long
# run (label full).
mlh_add_mini_run(gnmt np4_seed1 RANKS 4 SEED 1 FULL CHECK_LOG TIMEOUT 1500)
mlh_require_fixtures(FIXTURES gnmt_np4 TESTS e2e.GnmtMini.FourRanksReachTheTargetFarAboveCopyingTheSourceAndLogOnce FULL)
set(gnmt_small --set synthetic_dev_pairs=50 --set target_bleu=99)
mlh_add_resume_checks(gnmt ARGS ${gnmt_small} --set synthetic_pairs=1500 --set synthetic_test_pairs=50 --set max_epochs=2)
set(gnmt_first_epoch ${gnmt_small} --set synthetic_pairs=3000 --set synthetic_test_pairs=100 --set max_epochs=1)
mlh_add_seed_check(gnmt ARGS ${gnmt_first_epoch})
# Four ranks against one (gnmt_ranks_test.cpp), the first epoch of the small corpus above: `mpirun -np 4`
# on the mini config, and one rank cutting the global batch into the same 4 gradient shards, which
# must end with the same weights bit for bit; the seed-1 run of the seed check (the mini config on one
# rank: one shard) takes the same steps, with a loss that differs by rounding.
mlh_add_mini_run(gnmt np4_first_epoch_seed1 RANKS 4 SEED 1 SHORT TIMEOUT 300 ARGS ${gnmt_first_epoch} --checkpoint-every 1)
mlh_add_mini_run(gnmt np1_four_shards_seed1 RANKS 1 SEED 1 SHORT TIMEOUT 300
  ARGS ${gnmt_first_epoch} --set gradient_shards=4 --checkpoint-every 1)
mlh_add_rank_weights_check(gnmt ONE gnmt_np1_four_shards_seed1 MANY gnmt_np4_first_epoch_seed1 RANKS 4
  FIXTURES gnmt_np4_first_epoch gnmt_np1_four_shards)
# And two ranks, each cutting its half into 2 of the same 4 shards: the same weights again.
mlh_add_mini_run(gnmt np2_four_shards_seed1 RANKS 2 SEED 1 SHORT TIMEOUT 300
  ARGS ${gnmt_first_epoch} --set gradient_shards=4 --checkpoint-every 1)
mlh_add_rank_weights_check(gnmt ONE gnmt_np1_four_shards_seed1 MANY gnmt_np2_four_shards_seed1 RANKS 2
  FIXTURES gnmt_np2_four_shards gnmt_np1_four_shards)
mlh_require_fixtures(FIXTURES gnmt_np4_first_epoch gnmt_np1_four_shards
  TESTS e2e.GnmtRanks.FourRanksLogWhatOneRankOnFourShardsLogs)
mlh_require_fixtures(FIXTURES gnmt_np4_first_epoch gnmt_np1_first_epoch
  TESTS e2e.GnmtRanks.OneRankOnTheMiniConfigTakesFourRanksSteps)
