# NCF's end-to-end runs and checks, included by tests/e2e/CMakeLists.txt (which defines the functions).
# Its folders, the first ones, carry no workload name; its checks read them under these names.
target_sources(mlh_e2e_tests PRIVATE ${PROJECT_SOURCE_DIR}/tests/e2e/ncf_mini_test.cpp)
mlh_add_mini_run(ncf np1_seed1 RANKS 1 SEED 1 DIR np1_seed1 CHECK_LOG)
mlh_add_mini_run(ncf np1_seed1_again RANKS 1 SEED 1 DIR np1_seed1_again)
mlh_add_mini_run(ncf np2_seed1 RANKS 2 SEED 1 DIR np2_seed1 CHECK_LOG)
mlh_require_fixtures(FIXTURES ncf_np1 ncf_np1_again ncf_np2
  TESTS e2e.NcfMini.ReachesTargetAndLogsEveryCommonKey e2e.NcfMini.SameSeedGivesIdenticalEvalAccuracy
    e2e.NcfMini.TwoRanksMatchOneRank)
# Twenty epochs short of the target: the memory per epoch stays flat after the first; every epoch's
# throughput is in the record and the log.
mlh_add_mini_run(ncf np1_twenty_epochs_seed1 RANKS 1 SEED 1 SHORT TIMEOUT 900
  ARGS --set max_epochs=20 --set target_hit_rate=0.999)
mlh_add_memory_check(ncf ncf_np1_twenty_epochs_seed1 EPOCHS 20 FIXTURE ncf_np1_twenty_epochs)
mlh_add_run_check(e2e.ncf_mini.epoch_record_ncf_np1_twenty_epochs_seed1 EpochRecord.*
  FIXTURES ncf_np1_twenty_epochs ARGS --run ncf_np1_twenty_epochs_seed1 --epochs 20)
mlh_add_resume_checks(ncf ARGS --set max_epochs=2 --set target_hit_rate=0.999)
mlh_add_seed_check(ncf ARGS --set max_epochs=1 --set synthetic_users=1500 --set synthetic_items=1000
  --set target_hit_rate=0.999)
