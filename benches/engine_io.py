"""What the benchmark scripts share: speaking to a kingme process."""


def last_info(p, commands):
    """Sends `commands` (protocol lines ending in a `go`) to the kingme process
    `p` (text pipes) and reads up to its `bestmove`; returns the fields of the
    last `info depth` line before it, as a list of words. Raises RuntimeError
    when kingme answers `error ...` or closes its output first."""
    p.stdin.write(commands)
    p.stdin.flush()
    last = None
    for line in p.stdout:
        if line.startswith("error"):
            raise RuntimeError(f"kingme: {line.strip()}")
        if line.startswith("info depth"):
            last = line.split()
        if line.startswith("bestmove"):
            return last
    raise RuntimeError("kingme closed its output before bestmove")


def field(words, name, kind=int):
    """The value after `name` in an info line's words, as `kind`."""
    return kind(words[words.index(name) + 1])
