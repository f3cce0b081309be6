"""Start processes joined by torch.distributed (gloo, on this machine), or by
torch.distributed.rpc (TensorPipe), and collect what a function returns on each rank; and
the warnings that PyTorch's C++ code prints on a rank."""
import datetime
import multiprocessing
import os
import re
import socket
import warnings

import torch
import torch.distributed as dist
import torch.distributed.rpc as rpc


def free_port():
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def rank_main(rank, world_size, port, train, use_rpc, results):
    """One rank: join the group, run train(rank), send back its result or error."""
    # A process forked after its parent ran a torch operation can hang in
    # torch's thread pool: each rank uses one thread.
    torch.set_num_threads(1)
    address = f"tcp://127.0.0.1:{port}"
    if use_rpc:
        # PyTorch 2.13's RPC start-up warns about its own use of a gloo group.
        warnings.filterwarnings("ignore", "You are using a Backend", UserWarning)
        options = rpc.TensorPipeRpcBackendOptions(init_method=address, rpc_timeout=60)
        rpc.init_rpc(f"worker{rank}", rank=rank, world_size=world_size,
                     rpc_backend_options=options)
    else:
        dist.init_process_group("gloo", init_method=address, rank=rank,
                                world_size=world_size, timeout=datetime.timedelta(seconds=60))
    try:
        result = train(rank)
    except Exception as err:  # sent to the parent, which prints it
        result = f"{type(err).__name__}: {err}"
    finally:
        if use_rpc:
            rpc.shutdown()  # waits for the other workers' calls to end
        else:
            dist.destroy_process_group()
    results.put((rank, result))


def run_on_ranks(train, world_size=2, use_rpc=False, timeout=120):
    """train(rank) on ranks 0 to world_size - 1; returns their results, rank 0's first."""
    os.environ.setdefault("GLOO_SOCKET_IFNAME", "lo")  # loopback ("lo0" on macOS)
    os.environ.setdefault("TP_SOCKET_IFNAME", "lo")  # the same, for TensorPipe
    fork = multiprocessing.get_context("fork")  # works for functions of __main__
    results = fork.Queue()
    port = free_port()
    ranks = [fork.Process(target=rank_main,
                          args=(rank, world_size, port, train, use_rpc, results))
             for rank in range(world_size)]
    for process in ranks:
        process.start()
    try:
        return [result for _, result in sorted(results.get(timeout=timeout)
                                               for _ in ranks)]
    finally:
        for process in ranks:
            process.join(timeout=10)
            if process.is_alive():
                process.terminate()
                process.join()


LOG_PREFIX = re.compile(r"^\[rank\d+\]:\[[IWEF]\d{4} [\d:.]+ \S+:\d+\] ", re.M)


def with_cpp_warnings(function, *args, **kwargs):
    """function(*args, **kwargs), and the lines that PyTorch's C++ code wrote to this
    process's stderr meanwhile (a few warnings: they must fit in a pipe), without the
    prefix of rank, time and source line that varies from run to run."""
    read_end, write_end = os.pipe()
    saved = os.dup(2)
    os.dup2(write_end, 2)
    os.close(write_end)
    try:
        result = function(*args, **kwargs)
    finally:
        os.dup2(saved, 2)  # closes the pipe's last write end
        os.close(saved)
    with os.fdopen(read_end) as pipe:
        return result, LOG_PREFIX.sub("", pipe.read()).splitlines()
