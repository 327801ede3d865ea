"""The baseline of bench/buckets: the same bucket recurrence as
trial/buckets.c, in plain Python (no numpy), over the same lengths file.

    python3 buckets_dp.py FILE COMPILE_S A B C M K

Prints the optimum's predicted seconds and its buckets, one line each."""
import sys


def main():
    path, compile_s, a, b, c, m_mult, k_max = sys.argv[1:8]
    compile_s, a, b, c = float(compile_s), float(a), float(b), float(c)
    m_mult, k_max = int(m_mult), int(k_max)
    counts = {}
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            if "," in line:
                length, count = line.split(",")
                length, count = int(length), int(count)
            else:
                length, count = int(line), 1
            r = (length + m_mult - 1) // m_mult * m_mult
            counts[r] = counts.get(r, 0) + count
    rs = sorted(counts)
    m = len(rs)
    prefix = [0.0]
    for r in rs:
        prefix.append(prefix[-1] + counts[r])
    cost = [a + b * r + c * r * r for r in rs]
    k_max = min(k_max, m) if k_max else m
    inf = float("inf")
    # D[k][i]: the least total with k+1 buckets, the last at group i
    D = [[inf] * m for _ in range(k_max)]
    P = [[-1] * m for _ in range(k_max)]
    for i in range(m):
        D[0][i] = compile_s + prefix[i + 1] * cost[i]
    for k in range(1, k_max):
        prev, row, back = D[k - 1], D[k], P[k]
        for i in range(k, m):
            best, arg, ci, pi = inf, -1, cost[i], prefix[i + 1]
            for p in range(k - 1, i):
                v = prev[p] + compile_s + (pi - prefix[p + 1]) * ci
                if v < best:
                    best, arg = v, p
            row[i], back[i] = best, arg
    best_k = min(range(k_max), key=lambda k: (D[k][m - 1], k))
    buckets, at = [], m - 1
    for k in range(best_k, -1, -1):
        buckets.append(rs[at])
        at = P[k][at]
    print(f"{D[best_k][m - 1]:.6f}")
    print(",".join(str(x) for x in reversed(buckets)))


main()
