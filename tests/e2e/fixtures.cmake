# Read by ctest after gtest discovery: the NCF mini checks need the runs they read. The fixture names are
# those mlh_add_mini_run (CMakeLists.txt here) gives: <workload>_<run without _seed<s>>.
set_tests_properties(e2e.NcfMini.ReachesTargetAndLogsEveryCommonKey e2e.NcfMini.SameSeedGivesIdenticalEvalAccuracy
  e2e.NcfMini.TwoRanksMatchOneRank PROPERTIES FIXTURES_REQUIRED "ncf_np1;ncf_np1_again;ncf_np2")
set_tests_properties(e2e.ResNet50Mini.ReachesTargetWithTheSgdKeys PROPERTIES FIXTURES_REQUIRED resnet50_np2)
set_tests_properties(e2e.TransformerMini.ReachesItsBleuTargetFarAboveCopyingTheSource e2e.TransformerMini.TwoRanksMatchOneRank
  PROPERTIES FIXTURES_REQUIRED "transformer_np1;transformer_np2;transformer_np1_one_core")
set_tests_properties(e2e.GnmtMini.FourRanksReachTheTargetFarAboveCopyingTheSourceAndLogOnce
  PROPERTIES FIXTURES_REQUIRED gnmt_np4)
set_tests_properties(e2e.OwnLogs.NcfPassesTheComplianceCheck PROPERTIES FIXTURES_REQUIRED "ncf_np1;ncf_np2")
set_tests_properties(e2e.OwnLogs.ResNet50PassesTheComplianceCheck PROPERTIES FIXTURES_REQUIRED resnet50_np2)
set_tests_properties(e2e.OwnLogs.TransformerPassesTheComplianceCheck PROPERTIES FIXTURES_REQUIRED transformer_np1)
set_tests_properties(e2e.OwnLogs.GnmtPassesTheComplianceCheck PROPERTIES FIXTURES_REQUIRED gnmt_np4)
set_tests_properties(e2e.SsdMini.ReachesItsTargetMapOnOneRank e2e.SsdBesidePublished.ScoreAndReportShowTheMiniBesideNvidiasV07Logs
  e2e.OwnLogs.SsdPassesTheComplianceCheck PROPERTIES FIXTURES_REQUIRED ssd_np1)
set_tests_properties(e2e.SsdMini.TwoRanksMatchOneRank PROPERTIES FIXTURES_REQUIRED "ssd_np2;ssd_np1_one_core")
set_tests_properties(e2e.Memory.NcfMiniTwentyEpochsStayFlatAfterTheFirst PROPERTIES FIXTURES_REQUIRED ncf_np1_twenty_epochs)
set_tests_properties(e2e.Memory.ResNet50MiniThreeEpochsStayFlatAfterTheFirst PROPERTIES FIXTURES_REQUIRED resnet50_np1_three_epochs)

# The checks of the long runs (mlh_add_mini_run ... FULL) share their `full` label, so the default
# suite (`ctest -LE full`) neither runs them nor pulls their runs in as fixtures.
set_tests_properties(e2e.ResNet50Mini.ReachesTargetWithTheSgdKeys e2e.OwnLogs.ResNet50PassesTheComplianceCheck
  e2e.Memory.ResNet50MiniThreeEpochsStayFlatAfterTheFirst e2e.GnmtMini.FourRanksReachTheTargetFarAboveCopyingTheSourceAndLogOnce
  e2e.OwnLogs.GnmtPassesTheComplianceCheck PROPERTIES LABELS "e2e;full")
