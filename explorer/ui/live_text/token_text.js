// The original text coloured by token, beside the token chips, the two linked.
// The data: `pieces`, stretches of the text as [text, [token places]] (no place: text no token
// holds; several: a character split between tokens), `kinds` (a letter per token: "u" unknown,
// "s" special), `more` (a note after the text), `chips` (the page's HTML of the chips, outside
// text escaped in it, each chip in a `.tk-c[data-i]` box), `scroll` (whether the chips scroll in
// a box as high as the coloured text's), `group` (the key of the container that holds both).
// The text is set as textContent; the chips' HTML keeps only what chips are made of (`CHIP_TAGS`,
// `CHIP_ATTRIBUTES`). Hovering a stretch lights up its tokens' chips and stretches; hovering a
// chip, its stretches; a click on either scrolls the other into view.

const PALETTE = 6; // colours a token's stretch takes in turn (tk-p0 ... tk-p5), so neighbours differ
const drawn = new WeakMap(); // the text's box -> the data drawn in it
const linked = new WeakSet(); // groups that listen already
const lit = new WeakMap(); // group -> {key, elements}: what is lit up now
const CHIP_TAGS = new Set(["SPAN", "SUB", "EM"]);
const CHIP_ATTRIBUTES = new Set(["class", "title", "style", "data-i"]);
// The properties chips are drawn with (render.chip_html, compare._hex_chip, vocabulary.marked_chip).
const CHIP_STYLES = new Set(["background", "display", "border-bottom", "border-radius", "padding-bottom"]);

function piece(text, owners, kinds) {
  if (!owners.length) return document.createTextNode(text);
  const span = document.createElement("span");
  const first = owners[0];
  const kind = kinds[first];
  span.className = "tk-piece " + (kind === "u" ? "tk-unknown" : kind === "s" ? "tk-special" : `tk-p${first % PALETTE}`);
  if (owners.length > 1) {
    span.classList.add("tk-shared");
    span.title = `one character, split between ${owners.length} tokens`;
  }
  span.dataset.o = owners.join(" ");
  span.textContent = text;
  return span;
}

function draw(box, data) {
  const parts = data.pieces.map(([text, owners]) => piece(text, owners, data.kinds || ""));
  if (data.more) {
    const more = document.createElement("span");
    more.className = "tk-more";
    more.textContent = data.more;
    parts.push(more);
  }
  box.replaceChildren(...parts);
  const chips = box.parentElement.querySelector(".tk-chips");
  if (!chips) return;
  chips.replaceChildren(chipNodes(data.chips || ""));
  chips.classList.toggle("tk-scroll", Boolean(data.scroll));
}

// Whether a style attribute holds only chips' properties, with no function but hsl() (a url(),
// src() or image-set() would fetch).
function chipStyle(value) {
  return value.split(";").every((declaration) => {
    if (!declaration.trim()) return true;
    const [name, ...rest] = declaration.split(":");
    const bare = rest.join(":").replace(/hsl\([\d.,%\s]*\)/gi, "");
    return CHIP_STYLES.has(name.trim().toLowerCase()) && !/[()\\@]/.test(bare);
  });
}

// The chips' HTML as nodes: parsed inert (a template runs nothing), then anything a chip is not
// made of dropped: another tag becomes its text, another attribute or style goes.
function chipNodes(html) {
  const template = document.createElement("template");
  template.innerHTML = html;
  for (const el of template.content.querySelectorAll("*")) {
    if (!CHIP_TAGS.has(el.tagName)) {
      el.replaceWith(document.createTextNode(el.textContent));
      continue;
    }
    for (const name of el.getAttributeNames()) {
      if (!CHIP_ATTRIBUTES.has(name) || (name === "style" && !chipStyle(el.getAttribute(name)))) {
        el.removeAttribute(name);
      }
    }
  }
  return template.content;
}

// ---- linking ---------------------------------------------------------------------------------

function placesOf(target) {
  if (!(target instanceof Element)) return null;
  const chip = target.closest(".tk-c[data-i]");
  if (chip) return { places: [chip.dataset.i], from: "chip" };
  const stretch = target.closest(".tk-piece[data-o]");
  if (stretch) return { places: stretch.dataset.o.split(" "), from: "text" };
  return null;
}

function partners(group, places) {
  const chips = [];
  const stretches = [];
  for (const i of places) {
    chips.push(...group.querySelectorAll(`.tk-c[data-i="${i}"]`));
    stretches.push(...group.querySelectorAll(`.tk-piece[data-o~="${i}"]`));
  }
  return { chips, stretches };
}

function light(group, found) {
  if (!lit.has(group)) lit.set(group, { key: "", elements: [] });
  const state = lit.get(group);
  const key = found ? found.places.join(" ") : "";
  if (key === state.key) return;
  for (const el of state.elements) el.classList.remove("tk-on");
  state.key = key;
  state.elements = [];
  if (!found) return;
  const { chips, stretches } = partners(group, found.places);
  state.elements = [...chips, ...stretches];
  for (const el of state.elements) el.classList.add("tk-on");
}

function link(group) {
  if (linked.has(group)) return;
  linked.add(group);
  group.addEventListener("mouseover", (event) => light(group, placesOf(event.target)));
  group.addEventListener("mouseleave", () => light(group, null));
  group.addEventListener("click", (event) => {
    const found = placesOf(event.target);
    if (!found) return;
    const { chips, stretches } = partners(group, found.places);
    const other = found.from === "chip" ? stretches[0] : chips[0];
    if (other) other.scrollIntoView({ block: "nearest", inline: "nearest" });
  });
}

export default function (component) {
  const { data, parentElement } = component;
  if (!data || !parentElement) return undefined;
  const box = parentElement.querySelector(".tk-text");
  if (!box) return undefined;
  const signature = JSON.stringify(data);
  if (drawn.get(box) !== signature) {
    draw(box, data);
    drawn.set(box, signature);
  }
  const group = data.group ? parentElement.closest(`.st-key-${CSS.escape(data.group)}`) : null;
  if (group) link(group);
  return undefined;
}
