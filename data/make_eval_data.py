"""Generate the two harder held-out evaluation files of notebook 06 from the hand-written lists below.

Written for bertedu (CC BY 4.0). Standard library only, deterministic: running

    python data/make_eval_data.py                 # rewrites data/nsp_eval_hard.tsv and data/mlm_eval_generalise.tsv
    python data/make_eval_data.py --out /tmp/ev   # writes them somewhere else

reproduces the committed files byte for byte (``tests/test_data_files.py`` checks this). Edit the lists here,
never the generated files. Before writing, the script checks every promise ``data/README.md`` makes about
them and stops with a message naming the sentence that breaks one.

- ``nsp_eval_hard.tsv`` (columns ``sentence_a``, ``sentence_b``, ``label``): next-sentence pairs whose
  NotNext pairs come from the *same* document: each held-out three-sentence document (s1, s2, s3) gives
  the two true continuations (s1, s2) and (s2, s3) as ``IsNext`` and the same two pairs in the wrong order,
  (s2, s1) and (s3, s2), as ``NotNext`` (ALBERT's sentence-order prediction). Every pair of sentences
  appears in both orders, once with each label, so any rule that ignores the order (word overlap, topic)
  scores exactly 0.5.
- ``mlm_eval_generalise.tsv`` (columns ``sentence``, ``answers``): masked-word items built from new
  combinations of known words, where no 3-word window around the ``[MASK]`` (the two words before it; one
  on each side; the two after it, sentence boundaries counting as words) occurs in the corpus with any
  word in the mask's place. A trigram model has nothing to copy; the word that decides the answer (the
  subject, a place, a plural) is further away.

No sentence of either file is a line of ``simple_sentences.txt``, and every word is a corpus word.
"""

from __future__ import annotations

import argparse
from pathlib import Path

HERE = Path(__file__).resolve().parent
CORPUS = HERE / "simple_sentences.txt"

# Held-out documents of three sentences in the corpus's world, in their true order, written by hand so that
# the order is recoverable by a reader (then / later / after, a thing introduced before it is referred to,
# cause before effect). Documents are separated by a blank line.
HARD_NSP_DOCUMENTS = """
the brown dog finds a big bone
then the dog hides the big bone in the garden
later the dog finds the bone in the garden again

the grey mouse sees cheese on the table
the mouse runs to the table and eats the cheese
then the black cat sees the mouse

the woman plants a small seed in the garden
then rain falls on the small seed
after the rain the seed grows in the garden

dark clouds float over the farm
then rain falls from the dark clouds
after the rain the grass on the farm is wet

the small hen lays an egg in the morning
the farmer finds the egg
then the farmer takes the egg to the store

the woman walks to the store in the evening
at the store she buys milk and bread
then she walks home with the milk

the boy kicks the ball over the wall
the ball falls in the garden
then the brown dog brings the ball to the boy

the hot sun sets in the west
then the sky is dark and quiet
then the round moon shines over the hill

a small bird flies to the tall tree
the bird builds a nest on a branch
then the bird sleeps in the nest

the man sits at the table in the morning
he drinks hot coffee and reads the paper
then he walks the dog in the park

the girl finds her old doll under the bed
she gives the doll a cup of tea
then the girl and the doll sleep in the bed

the black cat sees a bird on the wall
the cat jumps on the wall
then the bird flies over the hill

the boy climbs the tall tree in the park
he sits on a big branch
then he sees a nest with two eggs

the big cow eats green grass all day
in the evening the cow gives milk
then the farmer takes the milk to the store

the teacher asks the girl a question
the small girl knows the answer
then the teacher writes the answer on the board

the small child hides under the bed
the boy looks for the child in the house
then the boy finds the child under the bed

the woman bakes warm bread for the family
then the family eats the bread at the table
after breakfast the children walk to school

the boy and the girl walk to the park
in the park they play with the ball
then they walk home and eat dinner

the small fish swims to the big rock
it hides under the rock
then the boy sees the fish under the rock

the bird sees a seed on the grass
the bird flies to the grass and eats the seed
then it sings in the tree

the man walks the dog to the river
the dog drinks cold water from the river
later they walk home in the dark

the girl wants a red apple
the boy climbs the tree and finds a red apple
then he gives the red apple to the girl

the child watches the bright stars from the window
then the child sleeps in the warm bed
in the morning the child drinks milk

the woman finds the black cat by the door
she gives the cat warm milk
the cat drinks the milk and is happy

the farmer works in the field all day
in the evening he walks home
then he eats meat and bread at dinner

the children read books at school in the morning
after school the children play in the park
then they walk home for dinner

the teacher writes a question on the board
the children read the question
then the boy knows the answer

the dog sees a mouse in the garden
the dog runs after the mouse
then the mouse hides in the wall

at night a grey mouse runs in the kitchen
the black cat sees the grey mouse
then the cat catches the mouse

the farmer opens the door of the house
the brown dog runs to the field
then the dog waits by the cow
"""

# Masked-word items: sentence -> the accepted answers (separated by |).
GENERALISE_ITEMS = """
the black cat likes to drink [MASK]                       -> milk
the big brown dog likes to drink [MASK]                   -> water
in the morning the man likes to drink [MASK]              -> coffee
in the kitchen the woman likes to drink [MASK]            -> tea
at breakfast the girl likes to drink [MASK]               -> juice
the small child wants to drink [MASK]                     -> milk
after school the boy wants to drink [MASK]                -> juice
the big cow likes to drink [MASK]                         -> water
the brown dog wants to drink [MASK] when the sun is hot   -> water
the black cat wants to drink [MASK] when it is warm       -> milk
the man wants to drink [MASK] when he reads the paper     -> coffee
the woman wants to drink [MASK] when she eats bread       -> tea
the hen likes to lay [MASK]                               -> eggs
the woman likes to plant [MASK]                           -> seeds
the woman likes to bake [MASK]                            -> bread
the black cat likes to watch [MASK]                       -> birds
the boy likes to climb [MASK]                             -> trees
the woman wants to buy [MASK]                             -> cheese|milk|eggs|juice|bread
the girl eats a sweet [MASK]                              -> apple
the girl likes sweet [MASK]                               -> apples
the happy [MASK] sleeps all night in the nest             -> bird
the quiet [MASK] sleeps all night in the bed              -> child
the happy [MASK] sleeps all night under the table         -> dog
the quiet [MASK] sleeps all night by the fire             -> cat
the happy [MASK] sings all morning in the tree            -> bird
the fast [MASK] barks all night at the door               -> dog
the quiet [MASK] hides all night in the wall              -> mouse
the happy [MASK] hides all night under a rock             -> fish
the fast [MASK] digs all night in the garden              -> dog
the small fish wants to [MASK] all night                  -> swim|hide
the small bird wants to [MASK] all night                  -> sing|sleep|fly
the small child sleeps in her [MASK] all night            -> bed
the brown dog digs in the wet [MASK]                      -> garden|grass
the big cow eats the wet [MASK]                           -> grass
the bright stars over the quiet hill [MASK] all night     -> shine
the round moon over the quiet hill [MASK] all night       -> shines
the white clouds over the quiet farm [MASK] all night     -> float
the hot sun over the green field [MASK] all morning       -> shines
the small stars over the dark house [MASK] all night      -> shine
the white clouds over the green field [MASK] all morning  -> float
"""


def corpus_sentences() -> list[str]:
    return [line for line in CORPUS.read_text(encoding="utf-8").split("\n") if line]


def documents() -> list[list[str]]:
    return [block.split("\n") for block in HARD_NSP_DOCUMENTS.strip().split("\n\n")]


def items() -> list[tuple[str, str]]:
    rows = []
    for line in GENERALISE_ITEMS.strip().split("\n"):
        sentence, answers = line.split("->")
        rows.append((sentence.strip(), answers.strip()))
    return rows


def nsp_rows(docs: list[list[str]]) -> list[tuple[str, str, str]]:
    """For each document and each pair of neighbours (x, y): (x, y, IsNext) then (y, x, NotNext)."""
    rows = []
    for doc in docs:
        for x, y in zip(doc, doc[1:]):
            rows += [(x, y, "IsNext"), (y, x, "NotNext")]
    return rows


def trigram_windows_seen(
    sentence: str, trigrams: set[tuple[str, str, str]], vocabulary: set[str]
) -> list[str]:
    """The 3-word windows around the [MASK] that some corpus trigram matches with a corpus word in its place."""
    tokens = ["<s>", "<s>", *sentence.split(), "</s>"]
    position = tokens.index("[MASK]")
    seen = []
    for end in range(position, min(position + 3, len(tokens))):
        window = tokens[end - 2 : end + 1]
        slot = window.index("[MASK]")
        if any(tuple(window[:slot] + [word] + window[slot + 1 :]) in trigrams for word in vocabulary):
            seen.append(" ".join(window))
    return seen


def check(docs: list[list[str]], mlm: list[tuple[str, str]]) -> None:
    """Raise ValueError naming the first sentence that breaks a promise of data/README.md."""
    corpus = corpus_sentences()
    lines, vocabulary = set(corpus), {w for s in corpus for w in s.split()}
    trigrams = set()
    for s in corpus:
        tokens = ["<s>", "<s>", *s.split(), "</s>"]
        trigrams.update(zip(tokens, tokens[1:], tokens[2:]))
    sentences = [s for doc in docs for s in doc] + [s for s, _ in mlm]
    for s in sentences:
        unknown = [w for w in s.split() if w != "[MASK]" and w not in vocabulary]
        if unknown:
            raise ValueError(f"{s!r} uses words the corpus never uses: {unknown}")
    for doc in docs:
        if len(doc) != 3:
            raise ValueError(f"a document must have three sentences: {doc}")
        for s in doc:
            if s in lines:
                raise ValueError(f"{s!r} is a corpus sentence; held-out documents must not be")
    flat = [s for doc in docs for s in doc]
    if len(set(flat)) != len(flat):
        raise ValueError("a sentence appears in two held-out documents")
    for sentence, answers in mlm:
        if sentence.split().count("[MASK]") != 1:
            raise ValueError(f"{sentence!r} needs exactly one [MASK]")
        for answer in answers.split("|"):
            if answer not in vocabulary or sentence.replace("[MASK]", answer) in lines:
                raise ValueError(
                    f"{sentence!r}: answer {answer!r} is not a corpus word or gives a corpus line"
                )
        seen = trigram_windows_seen(sentence, trigrams, vocabulary)
        if seen:
            raise ValueError(f"{sentence!r}: the corpus has trigrams matching the window(s) {seen}")


def write(out_dir: Path) -> dict[str, int]:
    docs, mlm = documents(), items()
    check(docs, mlm)
    files = {
        "nsp_eval_hard.tsv": "sentence_a\tsentence_b\tlabel\n"
        + "".join(f"{a}\t{b}\t{label}\n" for a, b, label in nsp_rows(docs)),
        "mlm_eval_generalise.tsv": "sentence\tanswers\n" + "".join(f"{s}\t{a}\n" for s, a in mlm),
    }
    out_dir.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        with open(out_dir / name, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
    return {name: text.count("\n") - 1 for name, text in files.items()}


def main(argv=None):
    parser = argparse.ArgumentParser(description="Generate bertedu's harder held-out evaluation files.")
    parser.add_argument("--out", type=Path, default=HERE, help="output folder (default: data/)")
    args = parser.parse_args(argv)
    for name, rows in write(args.out).items():
        print(name, rows, "rows")


if __name__ == "__main__":
    main()
