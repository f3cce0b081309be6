"""Start processes joined by torch.distributed (gloo, on this machine) and collect
what a function returns on each rank."""
import multiprocessing
import os
import tempfile

import torch
import torch.distributed as dist


def gloo(address, rank, world_size):
    """Join the default process group, gloo; returns how to leave it."""
    dist.init_process_group("gloo", address, world_size=world_size, rank=rank)
    return dist.destroy_process_group


def rank_main(rank, world_size, address, train, join, results):
    """One rank: join, run train(rank), send back its result or error."""
    # A process forked after its parent ran a torch operation can hang in
    # torch's thread pool: each rank uses one thread.
    torch.set_num_threads(1)
    leave = join(address, rank, world_size)
    try:
        result = train(rank)
    except Exception as err:  # sent to the parent, which prints it
        result = f"{type(err).__name__}: {err}"
    finally:
        leave()
    results.put((rank, result))


def run_on_ranks(train, world_size=2, join=gloo, timeout=120):
    """train(rank) on ranks 0 to world_size - 1: their results, rank 0's first."""
    os.environ.setdefault("GLOO_SOCKET_IFNAME", "lo")  # loopback ("lo0" on macOS)
    fork = multiprocessing.get_context("fork")  # works for functions of __main__
    results = fork.Queue()
    with tempfile.TemporaryDirectory() as folder:
        # The ranks meet through a file of their own: a free port that the
        # parent picked could be taken by another program before rank 0 binds it.
        address = "file://" + os.path.join(folder, "store")
        ranks = []  # those started: each is joined or stopped below
        try:
            for rank in range(world_size):
                process = fork.Process(target=rank_main, args=(
                    rank, world_size, address, train, join, results))
                process.start()
                ranks.append(process)
            return [result for _, result in sorted(results.get(timeout=timeout)
                                                   for _ in range(world_size))]
        finally:
            for process in ranks:
                process.join(timeout=10)
                if process.is_alive():
                    process.terminate()
                    process.join()
