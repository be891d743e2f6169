"""Fixtures of the benchmark tests: one two-node Ray cluster shared by the runner's Ray tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest


@pytest.fixture(scope="session")
def ray_cluster() -> Iterator[str]:
    """The address of a two-node ``ray.cluster_utils.Cluster`` on this machine, one CPU a node.

    Started once per test worker for every test that asks for it (``make test`` keeps a file's
    tests on one worker, and the runner's Ray tests live in one file); this process is
    connected to it, so a suite run with ``--runner ray`` submits there.
    """
    ray = pytest.importorskip("ray", reason="rewardgym[ray] is not installed")
    from ray.cluster_utils import Cluster

    store = 128 * 1024**2  # the tests' folders are kilobytes: keep shared memory small
    cluster = Cluster(
        initialize_head=True, head_node_args={"num_cpus": 1, "object_store_memory": store}
    )
    cluster.add_node(num_cpus=1, object_store_memory=store)
    ray.init(address=cluster.address, include_dashboard=False, log_to_driver=False)
    try:
        yield cluster.address
    finally:
        ray.shutdown()
        cluster.shutdown()
