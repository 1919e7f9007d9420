// Corrections: undo, a score by hand, or fix one event (a die, a meeple, a tile), each with a reason.
"use strict";

(() => {
  const { send, say } = Companion;

  // A quarter turn clockwise: a feature on side N moves to E, E to S, S to W, W to N.
  function turned(record) {
    const next = { N: "E", E: "S", S: "W", W: "N" };
    const copy = JSON.parse(JSON.stringify(record));
    for (const feature of copy.tile.features || []) {
      if (feature.edges) feature.edges = [...feature.edges].map((side) => next[side]).join("");
    }
    return copy;
  }

  function edited(form) {
    const record = JSON.parse(form.event.value);
    if (form.dataset.kind === "roll") record.dice = form.dice.value.trim().split(/[\s,]+/).map(Number);
    if (form.dataset.kind === "meeple") {
      record.size = form.size.value;
      record.feature = form.feature.value;
    }
    return record;
  }

  async function submit(form, request) {
    try {
      await send(request.path, request.body);
      say("Saved. The timeline shows the correction.", true);
      setTimeout(() => window.location.reload(), 700);
    } catch (error) {
      say(error.message);
    }
  }

  for (const form of document.querySelectorAll("form.fix")) {
    const rotate = form.querySelector(".rotate");
    if (rotate) {
      rotate.addEventListener("click", () => {
        form.event.value = JSON.stringify(turned(JSON.parse(form.event.value)));
        form.querySelector("details.advanced").open = true;
      });
    }
    const remove = form.querySelector(".remove-event");
    if (remove) {
      remove.addEventListener("click", () => {
        if (!form.reason.value.trim()) return say("Say why first.");
        submit(form, { path: "/api/corrections", body: { op: "remove", index: Number(form.dataset.index), reason: form.reason.value } });
      });
    }
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const reason = form.reason.value;
      if (form.dataset.op === "undo") return submit(form, { path: "/api/undo", body: { reason } });
      if (form.dataset.op === "adjust") {
        const adjust = { event: "adjust", player: form.player.value, points: Number(form.points.value), reason };
        return submit(form, { path: "/api/event", body: adjust });
      }
      let record;
      try {
        record = edited(form);
      } catch (error) {
        return say(`The event is not valid JSON: ${error.message}`);
      }
      submit(form, { path: "/api/corrections", body: { op: "replace", index: Number(form.dataset.index), event: record, reason } });
    });
  }
})();
