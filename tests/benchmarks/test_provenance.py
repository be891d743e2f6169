"""Every page's machine line names the CPU model and torch's thread settings (issue 31); no password is recorded (issue 39)."""

from __future__ import annotations

import os

import pytest
import torch

from rewardgym.benchmarks.provenance import THREAD_ENV, cpu_model, machine, run_provenance
from rewardgym.benchmarks.record_results import facts

CPUINFO = """processor\t: 0
vendor_id\t: AuthenticAMD
cpu family\t: 25
model\t\t: 1
model name\t: AMD EPYC
stepping\t: 1

processor\t: 1
model name\t: Another CPU
"""


def test_the_cpu_model_comes_from_the_first_processor() -> None:
    assert cpu_model(CPUINFO) == "AMD EPYC (family 25, model 1, stepping 1)"
    assert cpu_model("model name\t:   Intel(R)   Xeon(R)  \n") == "Intel(R) Xeon(R)"


def test_machine_records_cpu_and_threads(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    monkeypatch.delenv("MKL_NUM_THREADS", raising=False)
    found = machine()
    assert found["torch_threads"] == torch.get_num_threads()
    assert found["torch_interop_threads"] == torch.get_num_interop_threads()
    assert found["thread_env"] == {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": None}
    assert set(found["thread_env"]) == set(THREAD_ENV) and found["torch_cpu_capability"]
    if os.path.exists("/proc/cpuinfo"):
        assert found["cpu_model"]


def test_the_page_machine_line_names_them() -> None:
    meta = {
        "cpu_count": 2,
        "cpu_usable": 2,
        "cpu_model": "AMD EPYC (family 25, model 1, stepping 1)",
        "torch_threads": 2,
        "torch_interop_threads": 2,
        "torch_cpu_capability": "AVX2",
        "thread_env": {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": None},
        "worker_threads": {"workers": 2, "torch_threads": 1, "torch_interop_threads": 2},
        "cuda_available": False,
        "platform": "Linux-6.18.44",
    }
    line = facts(meta, "embodied", "quick")["machine"]
    assert line.startswith("2 CPU cores of AMD EPYC (family 25, model 1, stepping 1), no GPU; ")
    assert "torch threads 2 (interop 2), AVX2 kernels" in line
    assert "OMP_NUM_THREADS=1, MKL_NUM_THREADS unset" in line
    assert "training workers 2 x 1 torch threads (interop 2)" in line
    older = facts({"cpu_count": 2, "cuda_available": False}, "shop", "quick")["machine"]
    assert "a CPU model not recorded" in older and "torch threads not recorded" in older


def test_a_password_in_a_served_url_is_not_recorded() -> None:
    """Issue 39, item 14: ``meta.command`` and ``meta.argv`` kept ``openai:http://user:PW@...``."""
    argv = ["rewardgym", "bench", "fidelity", "--served", "openai:http://a:s3cretpw@h:8/v1#m"]
    meta = run_provenance(argv)
    assert "s3cretpw" not in meta["command"] + " ".join(meta["argv"])
    assert meta["argv"][-1] == "openai:http://***@h:8/v1#m"


def test_a_restarted_clock_times_the_next_suite_from_the_restart(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """rewardgym demo runs three suites in one process: each later page counts only its own."""
    import time

    from rewardgym.benchmarks import provenance

    monkeypatch.setattr(provenance, "_SUITE_START", None)
    before = provenance.run_provenance(["rewardgym", "demo"])
    assert before["process_clock"] == "process"
    monkeypatch.setattr(time, "time", lambda: 1_000_000.0)
    provenance.restart_clock()
    monkeypatch.setattr(time, "time", lambda: 1_000_042.5)
    after = provenance.run_provenance(["rewardgym", "demo"])
    assert after["process_seconds"] == 42.5 and after["process_clock"] == "restarted"
    provenance.use_process_clock()
    assert provenance.run_provenance(["rewardgym", "demo"])["process_clock"] == "process"
