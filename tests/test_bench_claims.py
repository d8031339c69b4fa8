"""The claims sweep's report logic (benchmarks/bench_claims.py), on made-up measurements: never a timed run."""

from __future__ import annotations

import bench_claims  # noqa: E402

from bertedu.course.claims import ledger


def _run(offset: int, records: list[dict]) -> dict:
    return {"offset": offset, "kernels": "native", "claims": records, "errors": [], "seconds": {}}


def _record(claim_id: str, value, reference=None, holds=True, slack=0.0) -> dict:
    return {"id": claim_id, "value": value, "reference": reference, "holds": holds, "slack": slack}


def _sweep(runs: list[dict]) -> dict:
    return {"runs": runs, "summary": bench_claims.summarise(runs), "capability": "AVX2", "notebooks": ["06"],
            "date": "2026-12-06", "seconds": 60.0, "load_average": 1.0}  # fmt: skip


def _an_at_least_claim():
    return next(
        c for c in ledger().values() if c.compare == "at_least" and isinstance(c.margin, (int, float))
    )


def test_a_claim_that_missed_under_an_old_margin_is_judged_again_and_named():
    claim = _an_at_least_claim()
    above, below = claim.margin + 0.01, claim.margin - 0.01
    sweep = _sweep([
        _run(0, [_record(claim.id, above)]),
        _run(1, [_record(claim.id, above, holds=False, slack=-0.5)]),  # the margin it had then was higher
    ])  # fmt: skip
    assert sweep["summary"][claim.id]["held"] == 1
    again = bench_claims.rejudge(sweep)
    assert again["summary"][claim.id]["held"] == 2
    assert again["summary"][claim.id]["verdict"].startswith("holds")
    assert again["rejudged"] == [claim.id]
    assert abs(again["summary"][claim.id]["min_slack"] - 0.01) < 1e-9
    report = "\n".join(bench_claims.section(again))
    assert f"`{claim.id}`" in report.split("restated after it")[1]

    still_missing = bench_claims.rejudge(
        _sweep([_run(0, [_record(claim.id, below, holds=False, slack=-0.01)])])
    )
    assert still_missing["summary"][claim.id]["held"] == 0 and still_missing["rejudged"] == []
    assert "fails on 1 of 1 runs" in still_missing["summary"][claim.id]["verdict"]


def test_an_entry_the_ledger_no_longer_has_is_kept_in_the_runs_and_left_out_of_the_summary():
    sweep = _sweep([_run(0, [_record("00-no-such-claim", 1.0)])])
    again = bench_claims.rejudge(sweep)
    assert (
        again["runs"][0]["claims"] == sweep["runs"][0]["claims"]
        and "00-no-such-claim" not in again["summary"]
    )


def test_an_entry_that_varies_is_kept_with_or_without_its_reference():
    claim = next(c for c in ledger().values() if c.compare == "varies")
    sweep = _sweep(
        [_run(0, [_record(claim.id, 0.3, 0.2, holds=False, slack=-0.1)]), _run(1, [_record(claim.id, 0.1)])]
    )
    again = bench_claims.rejudge(sweep)
    assert again["summary"][claim.id]["runs"] == 2 and again["summary"][claim.id]["verdict"].startswith(
        "varies"
    )
    assert claim.id in "\n".join(bench_claims.section(again))
