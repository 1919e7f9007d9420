// The timeline reloads its entries whenever the game changes.
"use strict";

(() => {
  const { el, signed } = Companion;
  let seen = null;
  let asked = 0; // only the answer to the latest question is drawn

  function item(entry) {
    const gone = entry.kind === "event" && !entry.current;
    const node = el("li", undefined, `${entry.kind}${gone ? " gone" : ""}`);
    const when = new Date(entry.at).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit" });
    node.append(el("span", when, "when muted"), el("span", entry.text, "what"));
    if (entry.reason) node.append(el("span", `Why: ${entry.reason}`, "why"));
    if (gone) node.append(el("span", "(later corrected or undone)", "why"));
    for (const change of entry.changes) {
      const link = el("a", undefined, "change");
      link.href = `/scores/${change.index}`;
      link.append(el("b", `${change.player} ${signed(change.points)}`), ` ${change.reason}`);
      node.append(link);
    }
    return node;
  }

  Companion.subscribe(async (state) => {
    if (state.seq === seen) return;
    seen = state.seq;
    const question = ++asked;
    const entries = await (await fetch("/api/timeline", { cache: "no-store" })).json();
    if (question !== asked) return;
    const list = document.getElementById("timeline");
    list.replaceChildren(...(entries.length ? entries.map(item) : [el("li", "Nothing has happened yet.", "muted")]));
  });
})();
