# ResNet-50's end-to-end runs and checks, included by tests/e2e/CMakeLists.txt (which defines the
# functions). The mini config to its target on two ranks is a long run (label full).
target_sources(mlh_e2e_tests PRIVATE ${PROJECT_SOURCE_DIR}/tests/e2e/resnet50_mini_test.cpp
  ${PROJECT_SOURCE_DIR}/tests/e2e/resnet50_cli_test.cpp)
mlh_add_mini_run(resnet50 np2_seed1 RANKS 2 SEED 1 FULL CHECK_LOG TIMEOUT 900)
mlh_require_fixtures(FIXTURES resnet50_np2 TESTS e2e.ResNet50Mini.ReachesTargetWithTheSgdKeys FULL)
# A small generated ImageNet folder at 32 pixels, for the short runs below.
set(resnet50_small --set data_source=synthetic_imagenet --set synthetic_classes=4 --set synthetic_min_side=36
  --set synthetic_max_side=48 --set image_size=32 --set num_classes=4 --set target_top1=1.0)
# Three epochs of 20 steps on it, short of the target: the memory per epoch stays flat after the first
# (a batch's tensors kept every step would add more than the check's 4 MiB an epoch).
mlh_add_mini_run(resnet50 np1_three_epochs_small_seed1 RANKS 1 SEED 1 SHORT TIMEOUT 600
  ARGS ${resnet50_small} --set synthetic_train_images_per_class=160 --set synthetic_val_images_per_class=16
  --set global_batch_size=32 --set eval_batch_size=32 --set max_epochs=3)
mlh_add_memory_check(resnet50 resnet50_np1_three_epochs_small_seed1 EPOCHS 3 FIXTURE resnet50_np1_three_epochs_small)
mlh_add_resume_checks(resnet50 ARGS ${resnet50_small} --set synthetic_train_images_per_class=48
  --set synthetic_val_images_per_class=16 --set global_batch_size=32 --set eval_batch_size=32 --set max_epochs=2)
mlh_add_seed_check(resnet50 ARGS ${resnet50_small} --set synthetic_train_images_per_class=64
  --set synthetic_val_images_per_class=64 --set global_batch_size=16 --set eval_batch_size=64
  --set base_learning_rate=0.02 --set warmup_epochs=0.2 --set max_epochs=1)
# Two ranks against one rank pinned to one core (one thread, as each of the two has), the first epoch
# of the small folder above (6 steps): every weight bit for bit, BatchNorm's running statistics within
# 0.5 of the one rank's (relative distance; seen: 0.43, as one rank folds in both shards every step).
mlh_add_rank_batchnorm_check(resnet50 BOUND 0.5 ARGS ${resnet50_small} --set synthetic_train_images_per_class=48
  --set synthetic_val_images_per_class=16 --set global_batch_size=32 --set eval_batch_size=32 --set max_epochs=1)
