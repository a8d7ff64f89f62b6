"""Tests of the course's notebooks and book configuration: the conventions every chapter and
exercise keeps (stems, set-up cell, parameters, no committed outputs, links), and checks of
the chapters' and book pages' text (cross-references, and statements once found wrong)."""

from __future__ import annotations

import functools
import json
import re
import subprocess
from pathlib import Path

import nbformat
import pytest
import yaml

from autograder.kernel import colab
from autograder.tests.conftest import toc_pages

ROOT = Path(__file__).resolve().parents[2]
CHAPTERS = ["01_arrays", "02_key_concepts", "03_pure_functions", "04_prng", "05_grad", "06_jit",
            "07_debugging", "08_performance", "09_control_flow", "10_vmap", "11_sharding",
            "12_shard_map", "13_capstone"]
FOLDERS = ["notebooks", "solutions", "exercises"]
ALL = [ROOT / f / f"{c}.ipynb" for f in FOLDERS for c in CHAPTERS]


def _read(path: Path) -> nbformat.NotebookNode:
    return nbformat.read(path, as_version=4)


def test_one_stem_per_chapter_in_every_folder() -> None:
    """Does every folder hold exactly the chapter stems?"""
    for folder in FOLDERS:
        assert sorted(p.stem for p in (ROOT / folder).glob("*.ipynb")) == CHAPTERS, folder


def test_committed_notebooks_have_no_outputs() -> None:
    """Is every tracked notebook committed without outputs or execution counts?"""
    tracked = subprocess.run(["git", "ls-files", "*.ipynb"], cwd=ROOT, capture_output=True,
                             text=True, check=True).stdout.split()
    assert tracked, "no notebooks are tracked"
    dirty = []
    for rel in tracked:
        if "fixtures/submissions" in rel or "fixtures/runtimes" in rel:
            continue  # submissions carry outputs on purpose, as Colab saved them
        nb = json.loads((ROOT / rel).read_text())
        if any(c.get("outputs") or c.get("execution_count") for c in nb.get("cells", [])):
            dirty.append(rel)
    assert dirty == []


BOOK_NOTEBOOKS = sorted([*(ROOT / "notebooks").glob("*.ipynb"),
                         *(ROOT / "book").glob("**/*.ipynb")])


@pytest.mark.parametrize("path", BOOK_NOTEBOOKS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_no_line_over_200_characters(path: Path) -> None:
    """Is every line of every cell of a chapter or book page at most 200 characters (a table
    row too: long rows are split), as in the released exercises (test_release.py)?"""
    long = [f"cell {i} line {j + 1}: {len(line)} characters"
            for i, cell in enumerate(_read(path).cells)
            for j, line in enumerate(cell.source.splitlines()) if len(line) > 200]
    assert long == []


@pytest.mark.parametrize("path", ALL, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_first_code_cell_is_the_colab_setup(path: Path) -> None:
    """Does each notebook start with the shared set-up cell (Colab install, else nothing)?"""
    first = next(c for c in _read(path).cells if c.cell_type == "code")
    assert first.source == colab.setup_cell()


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_chapter_structure(chapter: str) -> None:
    """Does each chapter have a parameters cell, a runtime report, and end with a summary,
    pitfalls and a Colab link to its own exercise notebook?"""
    nb = _read(ROOT / "notebooks" / f"{chapter}.ipynb")
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert any("parameters" in c.metadata.get("tags", []) for c in code[:3])
    assert any("describe()" in c.source for c in code[:5])
    text = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    assert "## Summary" in text and "## Common pitfalls" in text
    assert colab.colab_link(f"exercises/{chapter}.ipynb") in text
    assert nb.metadata.kernelspec.name == "python3"


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_deliberate_errors_are_tagged(chapter: str) -> None:
    """Is every cell that raises on purpose tagged, and followed by a cell (the fix)?"""
    cells = _read(ROOT / "notebooks" / f"{chapter}.ipynb").cells
    for i, cell in enumerate(cells):
        if "raises-exception" in cell.metadata.get("tags", []):
            assert i + 1 < len(cells), f"cell {i} raises on purpose but nothing follows it"


def test_timings_use_the_shared_helper() -> None:
    """Do notebooks time code only through autograder.kernel.timing, except the cells tagged
    `plain-timing` that teach the recipe without it (chapter 08, which teaches timing, and
    chapter 06 if it keeps a cell of its own)? Chapter 08 must have one."""
    offenders, plain = [], []
    for path in ALL:
        for cell in _read(path).cells:
            if "plain-timing" in cell.metadata.get("tags", []):
                plain.append(f"{path.parent.name}/{path.name}")
                continue
            if cell.cell_type == "code" and ("time.perf_counter" in cell.source
                                             or "time.time()" in cell.source
                                             or "%timeit" in cell.source):
                offenders.append(f"{path.parent.name}/{path.name}")
    assert offenders == []
    assert "notebooks/08_performance.ipynb" in plain
    assert set(plain) <= {"notebooks/06_jit.ipynb", "notebooks/08_performance.ipynb"}


def test_config_points_launch_buttons_at_the_repository() -> None:
    """Does _config.yml name the repository (read by the set-up cells) and Colab?"""
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    url, branch = colab.repository()
    assert url.startswith("https://github.com/") and branch
    assert f"git+{url}@{branch}" in colab.setup_cell()
    assert config["launch_buttons"]["colab_url"] == "https://colab.research.google.com"
    assert config["execute"]["allow_errors"] is False and config["execute"]["timeout"] > 0
    assert "exercises/*" in config["execute"]["exclude_patterns"]


def test_toc_lists_pages_chapters_and_exercises() -> None:
    """Does the table of contents hold the book pages, every chapter and every exercise?"""
    toc = (ROOT / "_toc.yml").read_text()
    for chapter in CHAPTERS:
        assert f"notebooks/{chapter}" in toc and f"exercises/{chapter}" in toc
    for page in ["intro", "how_to_use", "runtimes", "exercises", "grading", "glossary",
                 "references"]:
        assert f"book/{page}" in toc and (ROOT / "book" / f"{page}.md").exists()


def test_toc_lists_the_executed_book_pages() -> None:
    """Are the pages that run code (tools, what next, reading older code) notebooks in book/,
    listed in the table of contents, kernel python3, and free of the course's helper package
    (they must run in a fresh Colab runtime without the set-up cell)?"""
    toc = (ROOT / "_toc.yml").read_text()
    for page in ["tools", "what_next", "older_code"]:
        path = ROOT / "book" / f"{page}.ipynb"
        assert f"book/{page}" in toc and path.exists(), page
        nb = _read(path)
        assert nb.metadata.kernelspec.name == "python3", page
        code = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
        assert "autograder" not in code, page


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_the_book_leaves_out_the_set_up_cell(chapter: str) -> None:
    """Is each chapter's first code cell the Colab set-up cell, tagged ``remove-cell`` so that
    the book's page does not open with it (Colab ignores the tag and runs it first)?"""
    first = next(c for c in _read(ROOT / "notebooks" / f"{chapter}.ipynb").cells
                 if c.cell_type == "code")
    assert first.source.startswith("# Set-up: in Google Colab")
    assert "remove-cell" in first.metadata.get("tags", [])


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_chapter_turns_on_short_tracebacks(chapter: str) -> None:
    """Does each chapter's runtime cell turn on short error displays before anything fails?"""
    code = [c for c in _read(ROOT / "notebooks" / f"{chapter}.ipynb").cells
            if c.cell_type == "code"]
    runtime = next(i for i, c in enumerate(code) if "describe()" in c.source)
    assert "short_tracebacks()" in code[runtime].source
    first_error = next((i for i, c in enumerate(code)
                        if "raises-exception" in c.metadata.get("tags", [])), len(code))
    assert runtime < first_error


def test_other_tests_are_grouped_by_module(request: pytest.FixtureRequest) -> None:
    """Is a test not marked ``timing`` put in its module's xdist group (its module-scoped
    fixtures built once, on one worker)?"""
    group = request.node.get_closest_marker("xdist_group")
    assert group is not None and group.args == ("test_notebooks",)



# Cross-references. The chapters are read in the table of contents' order, not by number
# (10 comes right after 01, 11 right after 05), and topics moved when chapters were split, so a
# "chapter NN" in the text can name a chapter that does not exist, one whose code does not
# show what the sentence says, or a later chapter as if it had been read. The tests below read
# the text only: markdown cells, the comments of code cells, and the book's Markdown pages.

TEXT_PAGES = sorted([*(ROOT / "notebooks").glob("*.ipynb"), *(ROOT / "book").glob("*.ipynb"),
                     *(ROOT / "book").glob("*.md")])
NUMBERS = {chapter[:2]: chapter for chapter in CHAPTERS}

# "chapter 06", "Chapters 11", "chapter 06_jit", "Chapter [01 · Arrays](01_arrays.ipynb)"
CHAPTER_WORD = re.compile(r"\b[Cc]hapters?\s+\[?(\d{2})\b(_[a-z_]+)?")
# the rest of a list after "chapters NN": ", 05 (...) and 07", " and 05"
LIST_MORE = re.compile(r"\s*(?:\([^()]*\))?\s*(?:,\s*(?:and\s+)?|\s+and\s+)(\d{2})\b")
# what a reference's own brackets hold: its link target, or "(`jit`, jaxprs)" in a list
OWN_BRACKETS = re.compile(r"[^\S\n]*(?:\][^\S\n]*)?\([^()]*\)")
# "(04)", as in the capstone's list of what it needs
PAREN = re.compile(r"\((\d{2})\)")
# "05 · Tracing and jit", in links and tables
NUMBERED = re.compile(r"\b(\d{2}) · ([^\]|\n]+)")
# a link to a chapter, named by number: "[chapter 08](08_performance.ipynb)", "[05 · ...](...)"
NUMBER_LINK = re.compile(r"\[(?:[Cc]hapters? )?(\d{2})\b[^\]]*\]\((?:\.\./notebooks/)?([^)#]*)")
# a link to any chapter or exercise notebook
NOTEBOOK_LINK = re.compile(r"\]\((?:\.\./)?(?:notebooks/|exercises/)?(\d{2}_[a-z_]+)\.ipynb")
# wording that looks back to a chapter already read
BACKWARD = re.compile(
    r"(?:\b(?:from|as in|back in|since)\s+[Cc]hapter\s+(\d{2})\b)"
    r"|(?:\b[Cc]hapter\s+(\d{2})(?:'s)?\s+(?:showed|introduced|met|meant|explained|measured|"
    r"built|printed|saw|taught|covered|used)\b)")
# A clause ends at a sentence's end, a semicolon, a blank line, a list item or a table cell.
CLAUSE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z(\[`*])|;\s|\n\s*\n|\n\s*(?:[-*]|\d+\.)\s|\|")

# Each topic: its name, how the text names it, and how a chapter's code uses it. A chapter teaches
# a topic here when its code cells use it, so that the table follows the chapters when code
# moves from one to another.
TOPICS = [
    ("StableHLO", r"StableHLO", r"as_text\(|mlir_module\("),
    ("donation", r"donat|donate_argnums", r"donate_argnums"),
    ("cost_analysis", r"cost_analysis", r"cost_analysis\("),
    ("memory_analysis", r"memory_analysis", r"memory_analysis\("),
    ("ahead-of-time compiling", r"ahead-of-time|\.lower\(|`lower`|\.compile\(\)|`compile`",
     r"\.lower\("),
    ("jax.export", r"jax\.export|\bexports?\b", r"export\.export\("),
    ("jax.checkpoint", r"jax\.checkpoint|\bremat\b|rematerialis", r"jax\.checkpoint\b"),
    ("shard_map and meshes", r"shard_map|\bmesh(?:es)?\b|\bshardings?\b|\bpmap\b",
     r"shard_map|make_mesh|NamedSharding"),
    ("vmap", r"\bvmap\b", r"jax\.vmap\("),
    ("grad", r"\bgrad\b|jax\.grad|value_and_grad|jacfwd|jacrev|\bjvp\b|\bvjp\b",
     r"jax\.grad\(|jax\.value_and_grad\(|jax\.jacfwd\(|jax\.jacrev\("),
    ("scan", r"\bscan\b", r"lax\.scan\("),
    ("loops and branches", r"fori_loop|while_loop|lax\.cond|lax\.switch",
     r"fori_loop\(|while_loop\(|lax\.cond\(|lax\.switch\("),
    ("PRNG keys", r"PRNG|jax\.random|random numbers|random\.split|random\.key|typed keys",
     r"random\.split\(|random\.key\("),
    ("jit", r"jax\.jit|`jit`|\bjit\b", r"jax\.jit\b"),
    ("jaxprs and the compile cache", r"jaxprs?\b|static_arg|explain_cache_misses|log_compiles",
     r"make_jaxpr\(|static_argn|explain_cache_misses|log_compiles"),
    ("debugging under jit", r"debug_nans|debug_infs|checkify|check_static_indices",
     r"debug_nans|debug_infs|checkify"),
    ("jax.debug.print", r"jax\.debug\.print", r"jax\.debug\.print\("),
    ("pytrees", r"pytrees?\b|jax\.tree\b|jax\.tree\.map", r"jax\.tree\.|register_"),
    ("timing", r"\btiming\b|%timeit|block_until_ready|timing\.compare|medians",
     r"%timeit|perf_counter|timing\.compare\("),
]
REACH = 100  # characters between a topic and the reference it belongs to, at most


def _text_blocks(path: Path) -> list[str]:
    """The prose of a page: each markdown cell, the comments of each code cell, or the file."""
    if path.suffix == ".md":
        return [path.read_text()]
    blocks = []
    for cell in _read(path).cells:
        if cell.cell_type == "markdown":
            blocks.append(cell.source)
        elif cell.cell_type == "code":
            blocks.append("\n".join(line.split("#", 1)[1] for line in cell.source.splitlines()
                                    if "#" in line))
    return blocks


def _page(path: Path) -> str:
    return f"{path.parent.name}/{path.stem}"


def _references(text: str) -> list[tuple[int, int, str]]:
    """Each chapter number the text names: (start, end, number). A "chapter NN" or a list's
    "NN" reaches to the end of the brackets right after it, if any: its link, or the topics of
    a list such as "chapters 05 (`grad`, pytrees), 06 (`jit`, jaxprs) and 10"."""
    found = []

    def add(start: int, end: int, number: str) -> int:
        own = OWN_BRACKETS.match(text, end)
        found.append((start, own.end() if own else end, number))
        return end

    for match in CHAPTER_WORD.finditer(text):
        end = add(match.start(), match.end(), match.group(1))
        if match.group(0).lower().startswith("chapters"):
            while more := LIST_MORE.match(text, end):
                end = add(more.start(1), more.end(1), more.group(1))
    found += [(m.start(), m.end(), m.group(1)) for m in PAREN.finditer(text)]
    found += [(m.start(1), m.end(1), m.group(1)) for m in NUMBERED.finditer(text)]
    return sorted(set(found))


def _closing(text: str, at: int, lo: int) -> int:
    """Where the brackets around position `at` close, if it is inside brackets that open after
    `lo`; else the end of the text. A reference in brackets, "(chapter 05)" or "(04)", speaks
    of what comes before it or inside its brackets, not of what follows them."""
    depth = 0
    for i in range(at - 1, lo - 1, -1):
        depth += {")": 1, "(": -1}.get(text[i], 0)
        if depth < 0:
            break
    else:
        return len(text)
    depth = 0
    for i in range(at, len(text)):
        depth += {"(": 1, ")": -1}.get(text[i], 0)
        if depth < 0:
            return i
    return len(text)


@functools.cache
@functools.cache
def _titles() -> dict[str, str]:
    """Each chapter's title, its first line, without backticks."""
    return {chapter: _read(ROOT / "notebooks" / f"{chapter}.ipynb").cells[0].source
            .splitlines()[0].replace("`", "") for chapter in CHAPTERS}


@functools.cache
def _teachers() -> dict[str, set[str]]:
    """For each topic, the numbers of the chapters whose code cells use it."""
    code = {chapter[:2]: "\n".join(c.source for c in _read(ROOT / "notebooks" / f"{chapter}.ipynb")
                                   .cells if c.cell_type == "code")
            for chapter in CHAPTERS}
    return {name: {number for number, text in code.items() if re.search(used, text)}
            for name, _prose, used in TOPICS}


@pytest.mark.parametrize("path", TEXT_PAGES, ids=_page)
def test_chapter_references_name_chapters_that_exist(path: Path) -> None:
    """Does every "chapter NN" (also "chapters NN and MM", "chapter NN_stem", "(NN)" and
    "NN · Title") on a chapter or book page name a chapter that exists, with its stem and its
    title where it gives them, and does every link to a chapter named by its number lead to
    that chapter, and every link to a notebook to one that exists?"""
    titles = _titles()
    wrong = []
    for i, text in enumerate(_text_blocks(path)):
        for start, _end, number in _references(text):
            if number not in NUMBERS:
                wrong.append(f"block {i}: {text[max(0, start - 30):start + 30]!r}")
        for match in CHAPTER_WORD.finditer(text):
            if match.group(2) and match.group(1) + match.group(2) not in CHAPTERS:
                wrong.append(f"block {i}: no chapter {match.group(0)!r}")
        for match in NUMBERED.finditer(text):
            name = match.group(2).replace("`", "").strip().rstrip(".")
            if match.group(1) in NUMBERS and name not in titles[NUMBERS[match.group(1)]]:
                wrong.append(f"block {i}: {match.group(0)!r} is not in the title "
                             f"{titles[NUMBERS[match.group(1)]]!r}")
        for match in NUMBER_LINK.finditer(text):
            target = match.group(2).rsplit("/", 1)[-1]
            if target.endswith(".ipynb") and not target.startswith(match.group(1)):
                wrong.append(f"block {i}: {match.group(0)!r} names one chapter, links another")
        for match in NOTEBOOK_LINK.finditer(text):
            if match.group(1) not in CHAPTERS:
                wrong.append(f"block {i}: a link to {match.group(1)}.ipynb, which is not there")
    assert wrong == []


def test_every_topic_is_taught_and_named() -> None:
    """Is each topic of the cross-reference table used by some chapter's code and named on
    some page, so that a topic whose code or name changed does not silently stop being
    checked?"""
    teachers = _teachers()
    prose = "\n".join(block for path in TEXT_PAGES for block in _text_blocks(path))
    assert [name for name, chapters in teachers.items() if not chapters] == []
    assert [name for name, named, _used in TOPICS if not re.search(named, prose)] == []


def _misplaced_topics(text: str, teachers: dict[str, set[str]]) -> list[str]:
    """The topics of a text whose nearest chapter reference (in the same clause, within REACH
    characters, and not in brackets that closed before the topic) names a chapter whose code
    does not use the topic."""
    refs = _references(text)
    bounds = [0, *(m.end() for m in CLAUSE_END.finditer(text)), len(text)]
    wrong = []
    for lo, hi in zip(bounds, bounds[1:], strict=False):
        here = [ref for ref in refs if lo <= ref[0] < hi]
        for name, prose, _used in TOPICS if here else []:
            for match in re.finditer(prose, text[lo:hi]):
                start, end = lo + match.start(), lo + match.end()
                gaps = [(max(ref_start - end, start - ref_end, 0), n)
                        for ref_start, ref_end, n in here
                        if start < _closing(text, ref_start + 1, lo)]
                gap, number = min(gaps, default=(REACH + 1, ""))
                if gap <= REACH and number not in teachers[name]:
                    wrong.append(f"{name} is in the code of chapters {sorted(teachers[name])}, "
                                 f"not {number}: {text[lo:hi].strip()[:160]!r}")
    return wrong


def _looking_forward(text: str, page: str) -> list[str]:
    """The references of a text on `page` worded as looking back that name a chapter the
    table of contents puts at or after the page."""
    order = toc_pages()
    here = order.index(page)
    wrong = []
    for match in BACKWARD.finditer(text):
        number = match.group(1) or match.group(2)
        if number in NUMBERS and order.index(f"notebooks/{NUMBERS[number]}") >= here:
            wrong.append(f"{match.group(0)!r}, read after this page")
    return wrong


@pytest.mark.parametrize("path", TEXT_PAGES, ids=_page)
def test_chapter_references_name_a_chapter_that_teaches_the_topic(path: Path) -> None:
    """Where a clause names a topic of the table above (StableHLO, donation, cost_analysis,
    ahead-of-time compiling, export, checkpoint, shard_map, vmap, grad, scan, PRNG keys, jit,
    timing, ...) and a chapter, is the reference nearest to the topic one to a chapter whose
    code uses the topic? (A chapter whose code never uses a topic cannot be where it is
    taught; this does not ask which of the chapters that use it teaches it most.)"""
    teachers = _teachers()
    assert [f"block {i}: {w}" for i, text in enumerate(_text_blocks(path))
            for w in _misplaced_topics(text, teachers)] == []


@pytest.mark.parametrize("path", TEXT_PAGES, ids=_page)
def test_chapter_references_look_back_only_to_chapters_read_before(path: Path) -> None:
    """Does wording that looks back ("from chapter NN", "as in chapter NN", "chapter NN
    showed", ...) name a chapter that comes before this page in the table of contents?"""
    assert [f"block {i}: {w}" for i, text in enumerate(_text_blocks(path))
            for w in _looking_forward(text, _page(path))] == []


# References that went stale when chapter 06 was split into 05 and 11 (and 10 took the first
# look at jax.jit), as the pages said them before they were corrected.
STALE = [
    ("notebooks/01_arrays", "(Chapter 02 compiles whole functions with `jax.jit`; chapter 06 "
     "prints the programs a function becomes on the way: its jaxpr of `lax` primitives, and "
     "the StableHLO that JAX hands to XLA.)"),
    ("notebooks/13_capstone", "Chapter 06's *donation* tells XLA it may write the results into "
     "the arguments' memory: `jax.jit(f, donate_argnums=(0, 1))`."),
    ("book/tools", "Tools taught in the chapters are not repeated here: `jax.debug.print` "
     "(chapter 03), `jax_log_compiles` and `jax_explain_cache_misses`, `cost_analysis()` and "
     "`with jax.debug_nans(True)` (chapter 06)."),
    ("notebooks/10_vmap", "The chart times the three (through "
     "`autograder.kernel.timing.compare`, which warms up, blocks on the results and reports "
     "medians, as in chapter 06)."),
    ("notebooks/05_grad", "The timing below times both modes (each is wrapped in `jax.jit`, "
     "from chapter 06, so the chart compares the computations rather than Python overhead)."),
]


@pytest.mark.parametrize(("page", "text"), STALE, ids=[page for page, _text in STALE])
def test_the_reference_checks_catch_the_stale_references(page: str, text: str) -> None:
    """Would the two checks above have caught each reference that went stale in the split of
    chapter 06 (so that a change to their patterns cannot quietly let them through)?"""
    assert _misplaced_topics(text, _teachers()) or _looking_forward(text, page)


def _prose(path: Path) -> str:
    """A notebook's markdown cells without fenced code or inline code spans."""
    text = "\n".join(c.source for c in _read(path).cells if c.cell_type == "markdown")
    return re.sub(r"`[^`\n]*`", "`code`", re.sub(r"```.*?```", "", text, flags=re.S))


@pytest.mark.parametrize("path", BOOK_NOTEBOOKS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_no_heading_twice_on_a_page(path: Path) -> None:
    """Does each heading of a chapter or book notebook occur only once on its page (a section
    left behind by an edit shows up as a second copy)?"""
    headings = [line for c in _read(path).cells if c.cell_type == "markdown"
                for line in c.source.splitlines() if re.match(r"#{1,6} ", line)]
    assert sorted({h for h in headings if headings.count(h) > 1}) == []


@pytest.mark.parametrize("path", BOOK_NOTEBOOKS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_no_words_doubled(path: Path) -> None:
    """Is the prose free of a word, or a run of words, written twice in a row ("the the",
    "not a leaf, not a leaf")?"""
    doubled = re.compile(r"\b([A-Za-z]+ [A-Za-z]+(?: [A-Za-z]+){0,5}),? \1\b|\b([A-Za-z]+) \2\b")
    assert [m.group(0) for m in doubled.finditer(_prose(path))] == []


# Statements found wrong, each checked on JAX 0.7.2, 0.10.2 and 0.12.0.1: the page, wording
# that must not come back, and why.
CORRECTED = [
    ("notebooks/02_key_concepts", r"Wrapping a function in `jax\.jit` inside a loop",
     "jax.jit(f) on the same f again reuses its trace and program; a fresh lambda retraces"),
    ("notebooks/02_key_concepts", r"not faster than NumPy",
     "the chart it follows can show eager jnp a little ahead of NumPy on a CPU"),
    ("notebooks/09_control_flow", r"`0` as the initial value of a\s+float accumulator",
     "a Python 0 is weakly typed and takes the float carry's dtype: the loops accept it"),
    ("notebooks/08_performance", r"`x\.shape\[0\]`, say\) cannot be exported",
     "`if x.shape[0] >= 1` and `x.reshape(x.shape[0] * 4)` export; undecidable comparisons fail"),
    ("notebooks/11_sharding", r"`Explicit` (?:from|ones on|since) (?:JAX )?0\.10",
     "make_mesh's default axis type became Explicit in JAX 0.9.0"),
    ("notebooks/13_capstone", r"`Explicit` (?:from|ones on|since) (?:JAX )?0\.10",
     "make_mesh's default axis type became Explicit in JAX 0.9.0"),
    ("notebooks/13_capstone", r"catches\s+up", "Flax 0.12.12 imports and runs NNX on JAX 0.12"),
    ("book/what_next", r"catches\s+up", "Flax 0.12.12 imports and runs NNX on JAX 0.12"),
]


@pytest.mark.parametrize(("page", "wrong", "why"), CORRECTED,
                         ids=[f"{page}-{i}" for i, (page, _w, _y) in enumerate(CORRECTED)])
def test_corrected_statements_stay_corrected(page: str, wrong: str, why: str) -> None:
    """Does a page no longer say what was found wrong (the table above says why it is wrong)?"""
    text = "\n".join(c.source for c in _read(ROOT / f"{page}.ipynb").cells)
    assert not re.search(wrong, text), why


def test_the_corrections_explain_what_holds() -> None:
    """Do the corrected pages say what holds instead: 11 that a shape constraint decides a
    comparison of a symbolic dimension, 06 that a strongly typed int32 carry is refused, and
    09 and What next that Flax 0.12.12 goes with JAX 0.12?"""
    def text(page: str) -> str:
        return "\n".join(c.source for c in _read(ROOT / f"{page}.ipynb").cells)

    assert "constraints=[" in text("notebooks/08_performance")
    assert "InconclusiveDimensionOperation" in text("notebooks/08_performance")
    assert "jnp.int32(0)" in text("notebooks/09_control_flow")
    assert "Flax 0.12.12" in text("notebooks/13_capstone")
    assert "flax==0.12.12" in text("book/what_next")


MAX_CELLS = 75  # one sitting (issue 44): a chapter past it is split, as 05 and 08 were


def test_each_chapter_is_one_sitting_in_reading_order() -> None:
    """Does every chapter notebook hold at most MAX_CELLS cells, and does the book's table of
    contents list the chapters, and their exercises, in ascending number?"""
    sizes = {c: len(_read(ROOT / "notebooks" / f"{c}.ipynb").cells) for c in CHAPTERS}
    assert {c: n for c, n in sizes.items() if n > MAX_CELLS} == {}
    for folder in ("notebooks", "exercises"):
        listed = [page.split("/", 1)[1] for page in toc_pages()
                  if page.startswith(f"{folder}/")]
        assert listed == sorted(listed) == CHAPTERS, folder
