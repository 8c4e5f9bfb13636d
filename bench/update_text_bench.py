"""Text sent to the update model per turn versus the whole transcript, on the real transcripts.

Replays every transcript under ../shared/data/transcripts turn by turn with the local extractor
and, for each turn, compares what a model update would send (the trimmed exchange plus the full
map view) with the transcript bytes up to that turn. Usage: python bench/update_text_bench.py
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from cms.map.model import new_map
from cms.map.ops import apply_answer
from cms.map.render import render_full
from cms.providers.local import extract_ops
from cms.transcripts.reader import read_exchanges
from cms.worker.update import EXCHANGE_CHARS

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "transcripts"


def measure(path: Path) -> tuple[int, int, int]:
    """(turns, characters sent over all turns, transcript characters summed over all turns)."""
    exchanges = read_exchanges(path)
    size = path.stat().st_size
    cmap = new_map(path.stem, "bench")
    sent = whole = 0
    for number, exchange in enumerate(exchanges, start=1):
        sent += len(exchange.render(EXCHANGE_CHARS)) + len(render_full(cmap))
        whole += size * number // len(exchanges)  # the transcript as it stood at that turn
        apply_answer(cmap, extract_ops(cmap, exchange), turn=exchange.turn)
    return len(exchanges), sent, whole


def main() -> None:
    files = sorted(p for p in DATA.rglob("*.jsonl") if p.stat().st_size > 0)
    if not files:
        sys.exit(f"no transcripts under {DATA}")
    total_sent = total_whole = 0
    print(f"{'transcript':<48} {'turns':>5} {'sent/turn':>10} {'whole/turn':>11} {'ratio':>7}")
    for path in files:
        turns, sent, whole = measure(path)
        if not turns:
            continue
        total_sent += sent
        total_whole += whole
        name = str(path.relative_to(DATA))[-48:]
        print(
            f"{name:<48} {turns:>5} {sent // turns:>10} {whole // turns:>11} {sent / whole:>7.3f}"
        )
    print(f"{'all':<48} {'':>5} {'':>10} {'':>11} {total_sent / total_whole:>7.3f}")


if __name__ == "__main__":
    main()
