"""What the benchmark scripts share: speaking to a kingme process."""


def last_info(p, commands):
    """Sends `commands` (protocol lines ending in a `go`) to the kingme process
    `p` (text pipes) and reads up to its `bestmove`; returns the fields of the
    last `info depth` line before it, as a list of words."""
    p.stdin.write(commands)
    p.stdin.flush()
    last = None
    for line in p.stdout:
        if line.startswith("info depth"):
            last = line.split()
        if line.startswith("bestmove"):
            break
    return last
