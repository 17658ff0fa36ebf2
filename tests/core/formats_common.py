"""What the format tests share: the corpus, the modes trained on it, and helpers to compare encodings."""
from __future__ import annotations

import base64
from functools import cache
from pathlib import Path

from bpe_core import Settings, Tokenizer, train
from bpe_core.formats.huggingface import WORD_END
from bpe_core.pretokenize import symbols_to_bytes
from tests.conftest import ROOT, require


def hf_lib():
    """Hugging Face's `tokenizers`, for the tests that compare with it (skipped locally without it, failed under CI)."""
    return require("tokenizers")


GOLDEN = Path(__file__).parent / "golden"
CORPUS = "\n".join(
    (ROOT / "sample_corpora" / name).read_text(encoding="utf-8")
    for name in ("multilingual.txt", "tricky.txt")
)
TEXTS = [
    "The morning train was late again, so everyone shared their umbrellas.",
    "Le marché ouvre tôt: crêpes, Bücher, Straßen, café and résumé",
    "hello 😀 family 👨‍👩‍👧‍👦 flag 🇫🇷 thumbs 👍🏽 heart ❤️",
    "今天早上我去市场买了新鲜的蔬菜和水果。駅の近くに小さなパン屋があります。",
    "  leading\tand trailing  \n\nspaces\x1cand\u3000separators ",
    "unseen: ñ ¿ Ω ж zebra quixotic 𝔘𝔫𝔦",
    "literal </w> and ␣ markers <script>x</script>",
    "",
]
MODES = {
    "word-separate": Settings(),
    "word-suffix": Settings(eow="suffix"),
    "word-none": Settings(eow="none"),
    "word-nfkc-lower": Settings(normalization="NFKC", lowercase=True),
    "text-none": Settings(mode="text"),
    "text-whitespace": Settings(mode="text", pretokenizer="whitespace"),
    "text-gpt2": Settings(mode="text", pretokenizer="gpt2"),
    "bytes-gpt2": Settings(mode="bytes"),
    "bytes-gpt4": Settings(mode="bytes", pretokenizer="gpt4", normalization="NFC"),
    "bytes-none": Settings(mode="bytes", pretokenizer="none"),
}


@cache
def trained_by_mode() -> dict[str, Tokenizer]:
    """One tokenizer per mode, 300 merges on CORPUS, trained once for all the format tests (read only)."""
    return {name: train(CORPUS, settings, merges=300) for name, settings in MODES.items()}


def hf_tokens(tokens: list[str], tok: Tokenizer) -> list[str]:
    """Hugging Face's spelling of our tokens (the separate marker is written WORD_END)."""
    if tok.settings.mode == "word" and tok.settings.eow == "separate":
        return [t[:-4] + WORD_END if t.endswith("</w>") else t for t in tokens]
    return tokens


def assert_same_encodings(ours: Tokenizer, theirs: Tokenizer, texts: list[str] = TEXTS) -> None:
    for text in texts:
        a, b = ours.encode(text), theirs.encode(text)
        assert (a.tokens, a.ids) == (b.tokens, b.ids), text


def write_tiktoken(tok: Tokenizer, path: Path) -> None:
    """A rank file of a byte-level tokenizer: every single byte, then each merge's token bytes."""
    tokens = [bytes([b]) for b in range(256)] + [symbols_to_bytes(a + b) for a, b in tok.merges]
    lines = [f"{base64.b64encode(t).decode()} {rank}" for rank, t in enumerate(dict.fromkeys(tokens))]
    path.write_text("\n".join(lines) + "\n", encoding="ascii")


def hf_byte_level_model():
    hf_lib()
    from tokenizers import ByteLevelBPETokenizer

    hf = ByteLevelBPETokenizer()
    hf.train_from_iterator(
        [CORPUS], vocab_size=600, special_tokens=["<s>", "<pad>", "</s>", "<unk>"], show_progress=False
    )
    return hf
