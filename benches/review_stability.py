#!/usr/bin/env python3
"""How stable `kingme review` verdicts are between two reviews of the same
games (e.g. --movetime 100 against --movetime 1000): of the moves the first
calls a mistake or a blunder, how many the second still calls one (and an
inaccuracy or worse), and how many the second flags that the first did not.

    python3 benches/review_stability.py fast.json slow.json
"""

import json
import sys

BAD = {"mistake", "blunder"}
ORDER = ["best", "good", "inaccuracy", "mistake", "blunder"]


def verdicts(path):
    with open(path) as f:
        review = json.load(f)
    assert review["format"] == "kingme-review", path
    return {(g["game"], m["ply"]): m["verdict"] for g in review["games"] for m in g["moves"]}


def main(a_path, b_path):
    a, b = verdicts(a_path), verdicts(b_path)
    common = sorted(set(a) & set(b))
    flagged = [k for k in common if a[k] in BAD]
    kept = [k for k in flagged if b[k] in BAD]
    softened = [k for k in flagged if b[k] == "inaccuracy"]
    new = [k for k in common if b[k] in BAD and a[k] not in BAD]
    same = sum(a[k] == b[k] for k in common)
    print(f"moves compared {len(common)}, same verdict {same} ({100 * same / max(1, len(common)):.1f}%)")
    print(f"mistakes or blunders in {a_path}: {len(flagged)}; still one in {b_path}: {len(kept)} "
          f"({100 * len(kept) / max(1, len(flagged)):.0f}%), an inaccuracy there: {len(softened)}")
    print(f"mistakes or blunders in {b_path} only: {len(new)}")
    print("verdicts (rows: first review, columns: second):")
    print("              " + " ".join(f"{v[:5]:>6}" for v in ORDER))
    for r in ORDER:
        row = [sum(1 for k in common if a[k] == r and b[k] == c) for c in ORDER]
        print(f"  {r:<11} " + " ".join(f"{n:>6}" for n in row))


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
