"""The mini-BERT panel in a real browser: onnxruntime-web (vendored) runs the exported model with no network.

Builds a small site folder (web/minibert, tools/export_onnx.py --random as its model, tools/vendor_web.py's
onnxruntime-web), serves it on 127.0.0.1 and opens it in Debian's Chromium with every non-local request blocked.
The panel's top-5 for the example sentence are PyTorch's; every item of data/mlm_eval.tsv, run by the page's code in
the browser (unpadded and in padded batches), has PyTorch's top-5 and logits within 1e-4; there is one attention map
per layer and head; the Chinese panel speaks Chinese. 0 failed requests, 0 console errors. A screenshot is saved.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import torch

ROOT = Path(__file__).resolve().parents[2]

pytest.importorskip("onnxruntime", reason="onnxruntime is not installed (pip install onnxruntime)")
import export_banks  # noqa: E402
import export_onnx  # noqa: E402
import vendor_web  # noqa: E402
from lab_server import CHROMIUM_ARGS  # noqa: E402
from static_site import serve, watch  # noqa: E402

from bertedu.course import course_tokenizer  # noqa: E402
from bertedu.training.evalsets import load_masked_word_items  # noqa: E402

pytestmark = [pytest.mark.browser, pytest.mark.integration]  # Chromium, a local server, npm

PAGE_FILES = ("index.html", "page.js", "model.js", "tokenizer.js")
EXAMPLE = "the black cat drinks [MASK]"
PREDICT_JS = """async (batches) => {
    const out = [];
    for (const texts of batches) {
        const rows = await window.minibert.model.predictBatch(texts);
        out.push(rows.map((r) => ({ tokens: r.tokens, position: r.masks[0].position,
                                    top: r.masks[0].top.map((p) => p.id), logits: Array.from(r.masks[0].logits) })));
    }
    return out;
}"""


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    root = tmp_path_factory.mktemp("site")
    page = root / "minibert"
    page.mkdir()
    for name in PAGE_FILES:
        shutil.copy(ROOT / "web" / "minibert" / name, page / name)
    try:
        files = vendor_web.vendor()
    except FileNotFoundError as err:  # npm missing
        pytest.skip(str(err))
    for f in files:
        target = root / "vendor" / f.parent.name / f.name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(f, target)
    assert export_onnx.main(["--random", "--out", str(page / "model")]) == 0
    export_banks.export(root / "quiz" / "data")  # ui.json: the page's words
    with serve(root) as url:
        yield url


def test_minibert_panel_predicts_like_pytorch_offline(chromium_path, site, tmp_path):
    from playwright.sync_api import sync_playwright

    tokenizer = course_tokenizer()
    model = export_onnx.random_model(tokenizer.vocab_size, seed=0)  # what --random exported
    sentences = [item.sentence for item in load_masked_word_items(ROOT / "data" / "mlm_eval.tsv")]
    batches = [sentences, sentences[::2], sentences[1::2]]
    by_length: dict[int, list[str]] = {}
    for sentence in sentences:
        by_length.setdefault(len(tokenizer.tokenize(sentence)), []).append(sentence)
    batches += list(by_length.values())
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(chromium_path), headless=True, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1100, "height": 1300})
            problems = watch(page, site)
            page.goto(f"{site}/minibert/index.html?lang=en")
            page.wait_for_selector("body[data-ready='1']", timeout=60_000)
            page.locator("#minibert-input").fill(EXAMPLE)
            page.locator("button.minibert-predict").click()
            page.wait_for_selector(".minibert-top5", timeout=30_000)
            shown = page.locator(".minibert-top5 td.minibert-word").all_inner_texts()
            maps = page.locator(".minibert-map canvas").count()
            shot = tmp_path / "web-minibert.png"
            page.screenshot(path=str(shot), full_page=True)
            print(f"\nScreenshot of the mini-BERT panel: {shot}")
            results = page.evaluate(PREDICT_JS, batches)
            page.goto(f"{site}/minibert/index.html?lang=zh")
            page.wait_for_selector("body[data-ready='1']", timeout=60_000)
            heading = page.locator("#minibert h2").inner_text()
        finally:
            browser.close()
    assert not any(problems.values()), problems
    assert heading == "课程的迷你 BERT，在浏览器中运行"
    assert maps == model.config.num_hidden_layers * model.config.num_attention_heads
    with torch.no_grad():
        enc = tokenizer(EXAMPLE, return_tensors="pt")
        position = enc["input_ids"][0].tolist().index(tokenizer.mask_token_id)
        want = model(**enc).prediction_logits[0, position].topk(5).indices.tolist()
        assert shown == tokenizer.convert_ids_to_tokens(want)
        for texts, rows in zip(batches, results):
            enc = tokenizer(texts, padding=True, return_tensors="pt")
            logits = model(**enc).prediction_logits  # (B, T, V)
            for b, (text, row) in enumerate(zip(texts, rows)):
                n = int(enc["attention_mask"][b].sum())
                assert row["tokens"] == tokenizer.convert_ids_to_tokens(enc["input_ids"][b, :n]), text
                want = logits[b, row["position"]]
                assert (torch.tensor(row["logits"]) - want).abs().max() <= 1e-4, text
                assert row["top"] == want.topk(5).indices.tolist(), text
