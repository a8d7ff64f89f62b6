"""`make bench`: run the benchmarks and write bench/results/<name>.json and .png.

    python -m bench.run                 # everything, full sizes
    python -m bench.run --only fidelity # one benchmark
    python -m bench.run --tiny --out DIR  # a quick check that they run (make test uses it)
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from bench import build, common, fidelity


def main(argv: list[str] | None = None) -> int:
    """Run the chosen benchmarks; exit 0 when each ran."""
    parser = argparse.ArgumentParser(prog="python -m bench.run")
    parser.add_argument("--only", default="fidelity,build",
                        help="comma-separated: fidelity, build (default: all)")
    parser.add_argument("--tiny", action="store_true", help="tiny sizes, to check they run")
    parser.add_argument("--out", type=Path, default=common.RESULTS)
    args = parser.parse_args(argv)
    chosen = [name.strip() for name in args.only.split(",") if name.strip()]
    unknown = set(chosen) - {"fidelity", "build"}
    if unknown:
        print(f"unknown benchmark(s): {', '.join(sorted(unknown))}", file=sys.stderr)
        return 2
    if "fidelity" in chosen:
        print("timing-test fidelity ...", flush=True)
        tiny_cases = dict(list(fidelity.CASES.items())[:1])
        data = fidelity.run(runs=2, cases=tiny_cases) if args.tiny else fidelity.run(runs=100)
        path = common.save("timing_fidelity", data, args.out)
        fidelity.plot(data, args.out / "timing_fidelity.png")
        for condition, c in data["conditions"].items():
            for name, q in c["questions"].items():
                print(f"  {condition:5s} {name}: false_fail {q['false_fail']}/{data['runs']}, "
                      f"false_pass {q['false_pass']}/{data['runs']}")
        print(f"  -> {path}")
    if "build" in chosen and not args.tiny:
        print("book build ...", flush=True)
        data = build.run()
        build.plot(data, args.out / "book_build.png")
        print(f"  clean {data['clean_build_seconds']} s, rebuild {data['rebuild_seconds']} s"
              f" -> {common.save('book_build', data, args.out)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
