#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets into fuzz/seeds/TARGET/ from the project's own
test data, so the seeds follow the tests: the mail .eml corpus, every
engine's order texts from its table of cases and docs/adjudicate, the forever designs, and the
docs/adjudicate requests. Run by scripts/fuzz; the output is not committed."""

import hashlib
import json
import pathlib
import shutil

ROOT = pathlib.Path(__file__).resolve().parent.parent
SEEDS = ROOT / "fuzz" / "seeds"
ENGINES = ["barmy", "salvo", "ironclad", "skyfleet", "forever"]  # games::EngineKind::ALL order


def write(target, data):
    folder = SEEDS / target
    folder.mkdir(parents=True, exist_ok=True)
    (folder / hashlib.sha1(data).hexdigest()).write_bytes(data)


def order_texts(value):
    """Every string under an "orders" key, however deep."""
    if isinstance(value, dict):
        for key, item in value.items():
            if key == "orders" and isinstance(item, dict):
                yield from (v for v in item.values() if isinstance(v, str))
            else:
                yield from order_texts(item)
    elif isinstance(value, list):
        for item in value:
            yield from order_texts(item)


def main():
    shutil.rmtree(SEEDS, ignore_errors=True)
    counts = {}

    for eml in sorted((ROOT / "crates/mail/tests/corpus").glob("*.eml")):
        write("mail_read", eml.read_bytes())
    for eml in sorted((ROOT / "crates/mail/tests/bounces").glob("*.eml")):
        write("bounce_read", eml.read_bytes())

    designs = []
    for number, engine in enumerate(ENGINES):
        files = sorted((ROOT / "crates" / engine / "tests" / "cases").glob("*.json"))
        files.append(ROOT / "docs" / "adjudicate" / f"{engine}-turn.json")
        texts = set()
        for path in files:
            data = json.loads(path.read_text())
            texts.update(order_texts(data))
            if path.name == "_designs.json":
                designs.extend("\n".join(lines) for lines in data.values())
        for text in sorted(texts):
            # byte 0: the engine; byte 1: the state (0 new game, 1 example turn, 2 after it);
            # byte 2: the player.
            for state in range(3):
                write("engine_orders", bytes([number, state, 0]) + text.encode())
            if engine == "forever" and "SHIP " in text.upper():
                designs.append(text)

    for design in designs:
        write("forever_design", design.encode())

    for path in sorted((ROOT / "docs" / "adjudicate").glob("*.json")):
        if not path.name.endswith("-answer.json"):
            write("adjudicate_json", path.read_bytes())

    for target in sorted(p.name for p in SEEDS.iterdir()):
        counts[target] = len(list((SEEDS / target).iterdir()))
    print(" ".join(f"{t}={n}" for t, n in counts.items()))


if __name__ == "__main__":
    main()
