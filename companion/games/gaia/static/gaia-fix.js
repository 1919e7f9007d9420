// Gaia on the fix page: the table's events entered in taps. A one-tap event is a button carrying
// its event; a land tile, animals or a city is chosen by its card, then placed by tapping the land.
"use strict";

(() => {
  const { send, say } = Companion;
  const entry = document.getElementById("gaia-entry");

  async function record(event) {
    try {
      await send("/api/event", { ...event, meta: { source: "phone" } });
      say("Saved. The timeline shows it.", true);
      setTimeout(() => window.location.reload(), 700);
    } catch (error) {
      say(error.message);
    }
  }

  const cell = (button) => button.dataset.at.split(",").map(Number);
  const chosen = (name) => {
    const input = entry && entry.querySelector(`input[name="${name}"]:checked`);
    return input ? input.value : null;
  };

  if (entry) {
    const player = entry.dataset.player;
    for (const button of entry.querySelectorAll("button.gaia-choice")) {
      button.addEventListener("click", () => {
        const event = JSON.parse(button.dataset.event);
        if (event.event === "end" && !window.confirm(`${button.textContent}?`)) return;
        record(event);
      });
    }

    const needs = [];
    const needsShown = entry.querySelector(".gaia-needs-chosen");
    const preview = entry.querySelector(".gaia-preview");
    const sendButton = entry.querySelector(".gaia-send");
    const hint = entry.querySelector(".gaia-hint");
    let target = null; // the cell tapped, as [x, y]

    // What the choices so far make: the event and its words, or why it is not ready.
    function planned() {
      const mode = chosen("gaia-mode");
      if (!mode) return { why: "" };
      if (!target) return { why: "" };
      const at = target;
      const where = `[${at.join(",")}]`;
      if (mode === "tile") {
        const terrain = chosen("gaia-terrain");
        if (!terrain) return { why: "Which terrain does the Nature card show?" };
        return { event: { event: "tile", player, at, terrain }, text: `${player} lays a ${terrain} tile at ${where}` };
      }
      const icon = chosen("gaia-icon");
      if (!icon) return { why: "Which icon is in the card's corner?" };
      if (mode === "animals") {
        return { event: { event: "animals", player, at, card: { terrain: icon } }, text: `${player} puts 4 animals at ${where} (a ${icon} card)` };
      }
      if (needs.length !== 4) return { why: `Tap the city's 4 needs (${needs.length} so far).` };
      return {
        event: { event: "city", player, at, card: { terrain: icon, needs: [...needs] } },
        text: `${player} lays a ${icon} city at ${where} needing ${needs.join(", ")}`,
      };
    }

    function refresh() {
      const mode = chosen("gaia-mode");
      for (const group of entry.querySelectorAll("[data-modes]")) {
        group.hidden = !mode || !group.dataset.modes.split(" ").includes(mode);
      }
      if (hint) hint.hidden = !mode;
      if (needsShown) needsShown.textContent = `Needs: ${needs.length ? needs.join(", ") : "none yet"}`;
      // where the card may go: an empty cell beside the land for a tile, a free tile otherwise
      for (const button of entry.querySelectorAll("button.gaia-cell")) {
        const fits = mode === "tile" ? button.dataset.open === "1" : Boolean(mode) && button.dataset.free === "1";
        button.classList.toggle("target", fits);
        button.disabled = !fits;
        button.classList.toggle("chosen", Boolean(fits && target && button.dataset.at === target.join(",")));
      }
      const plan = planned();
      preview.textContent = plan.text || plan.why || "";
      sendButton.hidden = !plan.event;
    }

    entry.addEventListener("change", () => {
      if (!entry.querySelector(`button.gaia-cell.target[data-at="${target && target.join(",")}"]`)) target = null;
      refresh();
    });
    for (const button of entry.querySelectorAll(".gaia-need-add")) {
      button.addEventListener("click", () => {
        if (needs.length < 4) needs.push(button.dataset.need);
        refresh();
      });
    }
    const clear = entry.querySelector(".gaia-needs-clear");
    if (clear) clear.addEventListener("click", () => { needs.length = 0; refresh(); });
    for (const button of entry.querySelectorAll("button.gaia-cell")) {
      button.addEventListener("click", () => { target = cell(button); refresh(); });
    }
    sendButton.addEventListener("click", () => {
      const plan = planned();
      if (plan.event) record(plan.event);
    });
    refresh();
  }

  // Correcting one event: a card's corner icon and needs live inside "card", so they are written
  // into the event as recorded (the page's own fields reach only the event's top level).
  for (const form of document.querySelectorAll("form.fix")) {
    const fields = form.querySelectorAll("[data-card], [data-need]");
    if (!fields.length) continue;
    form.addEventListener("change", (event) => {
      const field = event.target;
      if (!field.matches("[data-card], [data-need]")) return;
      const recorded = JSON.parse(form.event.value);
      if (field.dataset.card) recorded.card[field.dataset.card] = field.value;
      else recorded.card.needs[Number(field.dataset.need)] = field.value;
      form.event.value = JSON.stringify(recorded);
    });
  }
})();
