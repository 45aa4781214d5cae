# Read by ctest after gtest discovery: the checks of mlh_e2e_checkpoint_tests need the runs they read
# (fixture names as mlh_add_mini_run in CMakeLists.txt gives them: <workload>_<run without _seed<s>>).
foreach(workload Ncf:ncf ResNet50:resnet50 Transformer:transformer Gnmt:gnmt Ssd:ssd)
  string(REPLACE ":" ";" pair ${workload})
  list(GET pair 0 test)
  list(GET pair 1 name)
  set_tests_properties(e2e.SeedDecides.${test}
    PROPERTIES FIXTURES_REQUIRED "${name}_np1_first_epoch;${name}_np1_first_epoch_again")
endforeach()
set_tests_properties(e2e.GnmtRanks.FourRanksTrainAsOneRankOnFourShards
  PROPERTIES FIXTURES_REQUIRED "gnmt_np4_first_epoch;gnmt_np1_four_shards")
set_tests_properties(e2e.GnmtRanks.OneRankOnTheMiniConfigTakesFourRanksSteps
  PROPERTIES FIXTURES_REQUIRED "gnmt_np4_first_epoch;gnmt_np1_first_epoch")
set_tests_properties(e2e.TransformerRanks.TwoRanksHoldOneRanksWeightsAfterTheFirstEpoch
  PROPERTIES FIXTURES_REQUIRED "transformer_np2;transformer_np1_one_core")
