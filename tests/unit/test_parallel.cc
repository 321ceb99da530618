// OrderedPipeline and parallel_ordered (src/core/parallel.h): items are
// consumed on the calling thread in index order for any jobs, produced once
// each on at most `jobs` threads with per-thread state, at most the
// look-ahead ahead of the consumer; an Error, stop(), a poll Error or an
// exception stops them and is what the caller sees.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "core/parallel.h"

using failmap::NoState;
using failmap::OrderedPipeline;
using failmap::parallel_ordered;
using failmap::ParallelOptions;
using failmap::Status;

namespace {

ParallelOptions jobs(unsigned n, std::size_t chunk = 1, std::size_t ahead = 0) {
  ParallelOptions o;
  o.jobs = n;
  o.chunk = chunk;
  o.ahead = ahead;
  return o;
}

// A little work whose time varies with i, so items finish out of order.
std::uint64_t spin(std::size_t i) {
  std::uint64_t x = i;
  for (std::size_t k = 0; k < 1000 * (i % 7); ++k) x = x * 6364136223846793005u + 1442695040888963407u;
  return x;
}

class ParallelJobs : public ::testing::TestWithParam<unsigned> {};

TEST_P(ParallelJobs, ConsumesEveryItemOnceInIndexOrderOnTheCallingThread) {
  for (std::size_t chunk : {std::size_t{1}, std::size_t{3}, std::size_t{16}}) {
    std::vector<std::size_t> order;
    std::vector<std::uint64_t> values;
    std::atomic<int> produced{0};
    const std::thread::id caller = std::this_thread::get_id();
    bool on_caller = true;
    Status s = parallel_ordered(
        1000, jobs(GetParam(), chunk),
        [&](std::size_t i) {
          ++produced;
          return std::make_pair(i, spin(i));
        },
        [&](std::size_t i, std::pair<std::size_t, std::uint64_t>&& v) {
          on_caller = on_caller && std::this_thread::get_id() == caller;
          EXPECT_EQ(v.first, i);
          order.push_back(i);
          values.push_back(v.second);
          return failmap::ok_status();
        });
    ASSERT_TRUE(s.ok());
    EXPECT_TRUE(on_caller);
    EXPECT_EQ(produced.load(), 1000);
    ASSERT_EQ(order.size(), 1000u);
    for (std::size_t i = 0; i < order.size(); ++i) {
      ASSERT_EQ(order[i], i);
      ASSERT_EQ(values[i], spin(i));
    }
  }
}

TEST_P(ParallelJobs, ZeroItemsProducesAndConsumesNothing) {
  int calls = 0;
  Status s = parallel_ordered(
      0, jobs(GetParam()),
      [&](std::size_t) {
        ++calls;
        return 0;
      },
      [&](std::size_t, int&&) {
        ++calls;
        return failmap::ok_status();
      });
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(calls, 0);
  OrderedPipeline<int, int> pipeline(
      jobs(GetParam()), [](int& i) { return i; }, [&](int&, int&&) -> Status { return ++calls, failmap::ok_status(); });
  EXPECT_TRUE(pipeline.finish().ok());
  EXPECT_EQ(calls, 0);
}

TEST_P(ParallelJobs, AnErrorOfConsumeStopsAndIsReturned) {
  std::vector<std::size_t> consumed;
  Status s = parallel_ordered(
      500, jobs(GetParam(), 4), [](std::size_t i) { return i; },
      [&](std::size_t i, std::size_t&&) -> Status {
        if (i == 123) return failmap::input_error("the 124th element refused");
        consumed.push_back(i);
        return failmap::ok_status();
      });
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message, "the 124th element refused");
  ASSERT_EQ(consumed.size(), 123u);
  EXPECT_EQ(consumed.back(), 122u);
}

TEST_P(ParallelJobs, FalseFromConsumeStopsWithSuccess) {
  std::size_t last = 0, count = 0;
  Status s = parallel_ordered(
      500, jobs(GetParam(), 2), [](std::size_t i) { return i; },
      [&](std::size_t i, std::size_t&&) {
        last = i;
        ++count;
        return i < 41;
      });
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(count, 42u);
  EXPECT_EQ(last, 41u);
}

TEST_P(ParallelJobs, SubmitIsRefusedOnceStopped) {
  std::vector<int> consumed;
  OrderedPipeline<int, int> pipeline(
      jobs(GetParam()), [](int& i) { return i * 10; },
      [&](int& i, int&& v) -> Status {
        consumed.push_back(v);
        if (i == 2) return failmap::input_error("stop at 2");
        return failmap::ok_status();
      });
  int submitted = 0;
  for (int i = 0; i < 10000 && pipeline.submit(i); ++i) ++submitted;
  EXPECT_LT(submitted, 10000);
  Status s = pipeline.finish();
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message, "stop at 2");
  EXPECT_EQ(consumed, (std::vector<int>{0, 10, 20}));
  EXPECT_FALSE(pipeline.submit(5));
}

TEST_P(ParallelJobs, TheFirstExceptionOfProduceInIndexOrderLeavesAfterTheItemsBeforeIt) {
  std::vector<std::size_t> consumed;
  auto run = [&] {
    return parallel_ordered(
        300, jobs(GetParam(), 5),
        [](std::size_t i) {
          if (i == 77 || i == 200) throw std::runtime_error("produce " + std::to_string(i));
          return spin(i);
        },
        [&](std::size_t i, std::uint64_t&&) {
          consumed.push_back(i);
          return failmap::ok_status();
        });
  };
  try {
    (void)run();
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), "produce 77");
  }
  ASSERT_EQ(consumed.size(), 77u);
  EXPECT_EQ(consumed.back(), 76u);
}

TEST_P(ParallelJobs, AnExceptionOfConsumeLeavesAndTheWorkersAreJoined) {
  std::atomic<int> produced{0};
  try {
    (void)parallel_ordered(
        10000, jobs(GetParam(), 2),
        [&](std::size_t i) {
          ++produced;
          return i;
        },
        [](std::size_t i, std::size_t&&) -> Status {
          if (i == 9) throw std::logic_error("consume 9");
          return failmap::ok_status();
        });
    FAIL() << "no exception";
  } catch (const std::logic_error& e) {
    EXPECT_EQ(std::string(e.what()), "consume 9");
  }
  const int after = produced.load();
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(produced.load(), after);  // no worker still runs
  EXPECT_LT(after, 10000);
}

TEST_P(ParallelJobs, ThePollErrorStopsAndIsReturned) {
  int polls = 0;
  ParallelOptions o = jobs(GetParam());
  o.poll = [&]() -> Status {
    if (++polls > 5) return failmap::input_error("interrupted");
    return failmap::ok_status();
  };
  std::size_t consumed = 0;
  Status s = parallel_ordered(
      1000, o, [](std::size_t i) { return i; },
      [&](std::size_t, std::size_t&&) {
        ++consumed;
        return failmap::ok_status();
      });
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message, "interrupted");
  EXPECT_LE(consumed, 5u);
}

INSTANTIATE_TEST_SUITE_P(Jobs, ParallelJobs, ::testing::Values(1u, 2u, 8u));

TEST(Parallel, OneJobStartsNoThreadAndAlternatesProduceAndConsume) {
  std::vector<std::string> trace;
  const std::thread::id caller = std::this_thread::get_id();
  Status s = parallel_ordered(
      3, jobs(1, 16, 100),
      [&](std::size_t i) {
        EXPECT_EQ(std::this_thread::get_id(), caller);
        trace.push_back("p" + std::to_string(i));
        return i;
      },
      [&](std::size_t i, std::size_t&&) {
        trace.push_back("c" + std::to_string(i));
        return failmap::ok_status();
      });
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(trace, (std::vector<std::string>{"p0", "c0", "p1", "c1", "p2", "c2"}));
}

TEST(Parallel, AtMostJobsThreadsProduce) {
  std::mutex mu;
  std::set<std::thread::id> producers;
  Status s = parallel_ordered(
      2000, jobs(3, 4),
      [&](std::size_t i) {
        {
          std::lock_guard lock(mu);
          producers.insert(std::this_thread::get_id());
        }
        return spin(i);
      },
      [](std::size_t, std::uint64_t&&) { return failmap::ok_status(); });
  EXPECT_TRUE(s.ok());
  EXPECT_GE(producers.size(), 1u);
  EXPECT_LE(producers.size(), 3u);
}

TEST(Parallel, ACallerThatConsumesOnlyProducesNothingBesideJobsWorkers) {
  std::mutex mu;
  std::set<std::thread::id> producers;
  ParallelOptions o = jobs(2, 4);
  o.caller = failmap::CallerRole::ConsumesOnly;
  Status s = parallel_ordered(
      2000, o,
      [&](std::size_t i) {
        {
          std::lock_guard lock(mu);
          producers.insert(std::this_thread::get_id());
        }
        return spin(i);
      },
      [](std::size_t i, std::uint64_t&& v) { return v == spin(i) ? failmap::ok_status() : failmap::input_error("?"); });
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(producers.count(std::this_thread::get_id()), 0u);
  EXPECT_LE(producers.size(), 2u);
  // One job is the calling thread alone, whatever its role.
  o.jobs = 1;
  producers.clear();
  s = parallel_ordered(
      10, o,
      [&](std::size_t i) {
        producers.insert(std::this_thread::get_id());
        return i;
      },
      [](std::size_t, std::size_t&&) { return failmap::ok_status(); });
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(producers, std::set<std::thread::id>{std::this_thread::get_id()});
}

TEST(Parallel, TheLookAheadIsBounded) {
  // Items produced but not consumed never exceed the look-ahead (12 items
  // in chunks of 3) plus the chunk being filled, however slow the consumer.
  for (unsigned n : {2u, 4u, 8u}) {
    std::atomic<std::size_t> produced{0};
    std::size_t consumed = 0, most = 0;
    Status s = parallel_ordered(
        600, jobs(n, 3, 12),
        [&](std::size_t i) {
          ++produced;
          return i;
        },
        [&](std::size_t, std::size_t&&) {
          std::this_thread::sleep_for(std::chrono::microseconds(50));
          most = std::max(most, produced.load() - consumed);
          ++consumed;
          return failmap::ok_status();
        });
    EXPECT_TRUE(s.ok());
    EXPECT_EQ(consumed, 600u);
    EXPECT_LE(most, 12u + 3u) << "jobs " << n;
    EXPECT_GE(most, 3u) << "jobs " << n;  // it did look ahead
  }
}

TEST(Parallel, EachProducingThreadMakesItsStateOnceAndKeepsIt) {
  struct Worker {
    std::thread::id owner;
    int produced = 0;
  };
  std::mutex mu;
  std::vector<std::shared_ptr<Worker>> made;
  bool same_thread = true;
  Status s = parallel_ordered(
      3000, jobs(4, 8),
      [&] {
        auto w = std::make_shared<Worker>();
        w->owner = std::this_thread::get_id();
        std::lock_guard lock(mu);
        made.push_back(w);
        return w;
      },
      [&](std::size_t i, std::shared_ptr<Worker>& w) {
        if (w->owner != std::this_thread::get_id()) same_thread = false;  // only this thread touches w
        ++w->produced;
        return spin(i);
      },
      [](std::size_t, std::uint64_t&&) { return failmap::ok_status(); });
  EXPECT_TRUE(s.ok());
  EXPECT_TRUE(same_thread);
  ASSERT_GE(made.size(), 3u);  // the three workers make theirs as they start
  ASSERT_LE(made.size(), 4u);  // and the calling thread when it helps
  std::set<std::thread::id> owners;
  int total = 0;
  for (const auto& w : made) {
    owners.insert(w->owner);
    total += w->produced;
  }
  EXPECT_EQ(owners.size(), made.size());
  EXPECT_EQ(total, 3000);
}

TEST(Parallel, StopFromConsumeEndsAfterThatItem) {
  std::vector<std::string> seen;
  OrderedPipeline<std::string, std::size_t>* self = nullptr;
  OrderedPipeline<std::string, std::size_t> pipeline(
      jobs(2), [](std::string& s) { return s.size(); },
      [&](std::string& s, std::size_t&& n) -> Status {
        seen.push_back(s + "=" + std::to_string(n));
        if (s == "bb") self->stop();
        return failmap::ok_status();
      });
  self = &pipeline;
  for (const char* s : {"a", "bb", "ccc", "dddd"})
    if (!pipeline.submit(s)) break;
  EXPECT_TRUE(pipeline.finish().ok());
  EXPECT_EQ(seen, (std::vector<std::string>{"a=1", "bb=2"}));
}

TEST(Parallel, AnExceptionOfMakeStateOnAWorkerLeavesOnTheCallingThread) {
  std::atomic<int> made{0};
  EXPECT_THROW(
      (void)parallel_ordered(
          1000, jobs(2),
          [&]() -> NoState {
            if (++made == 1) throw std::runtime_error("no state");
            return {};
          },
          [](std::size_t i, NoState&) { return i; }, [](std::size_t, std::size_t&&) { return failmap::ok_status(); }),
      std::runtime_error);
}

}  // namespace
