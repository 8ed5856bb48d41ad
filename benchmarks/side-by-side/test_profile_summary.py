"""profiling/profile_summary.py on canned collapsed stacks."""
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "profiling"))
import profile_summary  # noqa: E402


class ProfileSummaryTest(unittest.TestCase):
    def test_shares_of_the_jit_the_collector_and_the_hottest_frames(self):
        stacks = "\n".join([
            "start_thread;thread_native_entry;JavaThread::thread_main_inner;CompileBroker::compiler_thread_loop;C2Compiler::compile_method 30",
            "start_thread;thread_native_entry;Thread::call_run;WorkerThread::run;G1EvacuateRegionsBaseTask::work 10",
            "java/lang/Thread.run;io/nsc/storage/read/RangeReadCall.fill;__memset_avx512_unaligned_erms 40",
            "java/lang/Thread.run;io/nsc/storage/read/RangeReadCall.send;writev 20",
            "",
        ])
        with tempfile.NamedTemporaryFile("w", suffix=".collapsed", delete=False) as file:
            file.write(stacks)
        try:
            summary = profile_summary.summarize(file.name, top=2)
        finally:
            os.unlink(file.name)
        lines = summary.splitlines()
        self.assertIn("100 samples, JIT compiler 30.0%, GC 10.0%", lines[0])
        self.assertEqual(["40.0% __memset_avx512_unaligned_erms", "30.0% C2Compiler::compile_method"], [line.strip() for line in lines[1:]])


if __name__ == "__main__":
    unittest.main()
