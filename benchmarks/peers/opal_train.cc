// opal's learner (J.DepP's, the peer kit's unmodified pa.h) run on a training
// file, timing reading and training apart:
//   opal_train [opal options] TRAIN MODEL TEST      (MODEL / TEST may be "-")
// Prints the CPU seconds of reading and of training ("read_seconds R",
// "train_seconds T") on stderr after opal's own output.
// Built by benchmarks/bench_pecco_train.py; like the kit's driver it opens the
// model's private members to call opal's own reading and training steps.
#include <cstring>
#include <ctime>
#define private public
#include "pa.h"
#undef private

int main(int argc, char** argv) {
  opal::option opt(argc, argv);
  opal::Model model(opt);
  const std::clock_t t0 = std::clock();
  opal::mem_pool<opal::ex_t> pool;  // what train_from_file does with -b 0 (RAM), in two timed steps
  pool.read(opt.train, &model._lm, &model._fm, opt.kernel != opal::LINEAR || opt.featT != 1, opt.M);
  const std::clock_t t1 = std::clock();
  model.train(pool, opt.iter, "", false);
  const std::clock_t t2 = std::clock();
  if (std::strcmp(opt.model, "-") != 0) model.save(opt.model);
  if (std::strcmp(opt.test, "-") != 0) model.test_on_file(opt.test, 0);
  std::fprintf(stderr, "\nread_seconds %.6f\ntrain_seconds %.6f\n", double(t1 - t0) / CLOCKS_PER_SEC,
               double(t2 - t1) / CLOCKS_PER_SEC);
  return 0;
}
