#!/usr/bin/env python3
"""A model of one block's mbarrier protocol in the persistent wgmma attention
backward (lib/Conversion/TileToGPU/AttentionBackwardWgmma.cpp), for checking
a change to the protocol before a GPU call: the producer warpgroup (thread 0
also issues the loads), the consumers and the TMA completions run under
random interleavings; each wait checks the data it guards (the stage's
tile, the stats, the stationary set) and a state where nothing can run is a
hang. The work items per block follow the emitter's schedule (classes by
weight, rounds walked forward then backward).

usage: attn_bwd_protocol.py [SEEDS] [--old]
  --old: the first persistent build's protocol (stats phases only on
  K/V-stationary items' tiles), which this model shows hanging or reading
  stale stats; without it, the current one.
"""
import random
import sys

def schedule(batch, tq, causal, grid_override=None, stages=4, sets=2):
    kRows, kStat = 64, 128
    qt = -(-tq // kRows)
    classes = []
    for t in range(-(-tq // kStat)):
        first = t * kStat // kRows if causal else 0
        classes.append((True, t, max(qt - first, 0)))
    for t in range(-(-tq // kStat)):
        tiles = qt
        if causal: tiles = min(tiles, (t * kStat + kStat + kRows - 1) // kRows)
        classes.append((False, t, tiles))
    classes.sort(key=lambda c: -(c[2] * (4 if c[0] else 3)))
    items = len(classes) * batch
    grid = 132 if items >= 8 * 132 else items
    if grid_override: grid = grid_override
    rounds = -(-items // grid)
    per_block = []
    for blk in range(grid):
        its = []
        for r in range(rounds):
            pos = r * grid + (grid - 1 - blk if r % 2 else blk)
            if pos < items:
                c = classes[pos // batch]
                its.append((c[0], c[2]))
        per_block.append(its)
    return per_block

class Bar:
    def __init__(s, count): s.count, s.arr, s.tx, s.done = count, 0, 0, 0
    def arrive(s, tx=0):
        s.arr += 1; s.tx += tx; s.maybe()
    def complete_tx(s, tx): s.tx -= tx; s.maybe()
    def maybe(s):
        assert s.arr <= s.count, "over-arrival"
        if s.arr == s.count and s.tx == 0:
            s.arr = 0; s.done += 1
    def passes(s, parity): return s.done % 2 != parity

def run_block(items, stages, sets, P=3, C=2, seed=0, old=False):
    rng = random.Random(seed)
    lag = stages - 1
    statF = [Bar(1) for _ in range(sets)]; statE = [Bar(C) for _ in range(sets)]
    full = [Bar(1) for _ in range(stages)]; statsF = [Bar(P) for _ in range(stages)]
    empty = [Bar(C) for _ in range(stages)]
    stage_data = [None] * stages; stats = [[None] * P for _ in range(stages)]
    set_data = [None] * sets
    cons_done_step = [-1] * C; cons_done_item = [-1] * C
    asyncs = []  # pending TMA completions (callables)
    def producer(t):
        step = 0
        for n, (keys, tiles) in enumerate(items):
            st = n % sets; ph = (n // sets) % 2
            if t == 0:
                yield ("wait", statE[st], ph ^ 1)
                def land(st=st, n=n):
                    assert all(d >= n - sets for d in cons_done_item), "stationary overwritten in use"
                    set_data[st] = n
                statF[st].arrive(tx=1); asyncs.append((statF[st], land))
            for j in range(tiles + (lag if (keys or not old) else 0)):
                if t == 0 and j < tiles:
                    s = step + j; sg = s % stages; ph2 = (s // stages) % 2
                    yield ("wait", empty[sg], ph2 ^ 1)
                    def land2(sg=sg, s=s):
                        assert all(d >= s - stages for d in cons_done_step), "stage overwritten in use"
                        stage_data[sg] = s
                    full[sg].arrive(tx=1); asyncs.append((full[sg], land2))
                if j >= lag:
                    s = step + j - lag; sg = s % stages
                    yield ("wait", full[sg], (s // stages) % 2)
                    assert stage_data[sg] == s, "stats read a stale stage"
                    if keys:
                        assert all(d >= s - stages for d in cons_done_step), "stats overwritten in use"
                        stats[sg][t] = s
                    yield ("yield",)
                    statsF[sg].arrive()
            step += tiles
    def consumer(c):
        step = 0
        for n, (keys, tiles) in enumerate(items):
            st = n % sets
            yield ("wait", statF[st], (n // sets) % 2)
            assert set_data[st] == n, "stationary not this item's"
            for j in range(tiles):
                s = step + j; sg = s % stages; ph = (s // stages) % 2
                yield ("wait", full[sg], ph)
                assert stage_data[sg] == s, "stage not this step's"
                if keys or not old:
                    yield ("wait", statsF[sg], ph)
                if keys:
                    assert all(x == s for x in stats[sg]), "stats not this step's"
                assert set_data[st] == n
                yield ("yield",)
                assert stage_data[sg] == s and set_data[st] == n, "overwritten during use"
                cons_done_step[c] = s
                empty[sg].arrive()
            cons_done_item[c] = n
            statE[st].arrive()
            step += tiles
    threads = [producer(t) for t in range(P)] + [consumer(c) for c in range(C)]
    pending = [None] * len(threads)
    alive = set(range(len(threads)))
    while alive or asyncs:
        runnable = [i for i in alive if pending[i] is None or pending[i][0] != "wait" or pending[i][1].passes(pending[i][2])]
        choices = [("t", i) for i in runnable] + [("a", k) for k in range(len(asyncs))]
        if not choices:
            return "DEADLOCK"
        kind, i = rng.choice(choices)
        if kind == "a":
            bar, land = asyncs.pop(i); land(); bar.complete_tx(1); continue
        try:
            pending[i] = next(threads[i])
        except StopIteration:
            alive.discard(i)
    return "ok"

cases = [("bench B16H12 T1024 causal d64", schedule(192, 1024, True), 4, 2),
         ("persist_c64", schedule(264, 130, True), 4, 2),
         ("persist_f128", schedule(528, 40, False), 2, 1),
         ("T1024 causal d128 sets1 persistent", schedule(192, 1024, True), 2, 1),
         ("T700 causal forced grid 5", schedule(3, 700, True, grid_override=5), 4, 2),
         ("T520 full forced grid 3 sets1", schedule(4, 520, False, grid_override=3), 2, 1)]
OLD = "--old" in sys.argv
args = [a for a in sys.argv[1:] if a != "--old"]
bad = 0
for name, blocks, stages, sets in cases:
    picks = [0, len(blocks) // 2, len(blocks) - 1]
    for b in sorted(set(picks)):
        for seed in range(int(args[0]) if args else 20):
            try:
                r = run_block(blocks[b], stages, sets, seed=seed, old=OLD)
            except AssertionError as e:
                r = "ASSERT " + str(e)
            if r != "ok":
                bad += 1
                print(name, "block", b, "seed", seed, r); break
    print(name, "blocks", len(blocks), "items of block 0:", len(blocks[0]), "done")
print("failures", bad)
sys.exit(1 if bad else 0)
