// Corrections: undo, a score by hand, or fix one event, each with a reason. A game's own fields
// for an event (its "edit" partial) are inputs with data-field, read into the event as written.
"use strict";

(() => {
  const { send, say, seq } = Companion;

  // data-as: "numbers" reads "3 5" or "1, -2" as [3, 5]; "number" one number; "words" reads
  // "knight, cap" as ["knight", "cap"]; "json" the text as JSON; else the text.
  function value(input) {
    const text = input.value.trim();
    if (input.dataset.as === "numbers") return text.split(/[\s,]+/).filter(Boolean).map(Number);
    if (input.dataset.as === "number") return Number(text);
    if (input.dataset.as === "words") return text.split(/[\s,]+/).filter(Boolean);
    if (input.dataset.as === "json") return JSON.parse(text);
    return input.value;
  }

  function edited(form) {
    const record = JSON.parse(form.event.value);
    for (const input of form.querySelectorAll("[data-field]")) record[input.dataset.field] = value(input);
    return record;
  }

  async function submit(request) {
    try {
      await send(request.path, request.body);
      say("Saved. The timeline shows the correction.", true);
      setTimeout(() => window.location.reload(), 700);
    } catch (error) {
      say(error.message);
    }
  }

  // The game moves on while this page is open (the camera, another phone): a change made here
  // would be refused, so it is said at once, with the way out, not after the typing. A phone's own
  // change reloads the page sooner than the notice would show.
  const movedOn = document.getElementById("moved-on");
  if (movedOn) {
    let timer = null;
    Companion.subscribe((state) => {
      if (state.seq !== seq() && timer === null) timer = setTimeout(() => { movedOn.hidden = false; }, 1500);
    });
    movedOn.querySelector("button").addEventListener("click", () => window.location.reload());
  }

  // Arriving from a score's "Fix it" link: open that event.
  const target = window.location.hash && document.querySelector(`${window.location.hash} details`);
  if (target) target.open = true;

  for (const form of document.querySelectorAll("form.fix")) {
    const remove = form.querySelector(".remove-event");
    if (remove) {
      remove.addEventListener("click", () => {
        if (!form.reason.value.trim()) return say("Say why first.");
        const body = { op: "remove", index: Number(form.dataset.index), reason: form.reason.value, base: seq() };
        submit({ path: "/api/corrections", body });
      });
    }
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const reason = form.reason.value;
      if (form.dataset.op === "undo") return submit({ path: "/api/undo", body: { reason, base: seq() } });
      if (form.dataset.op === "adjust") {
        const adjust = { event: "adjust", player: form.player.value, points: Number(form.points.value), reason };
        return submit({ path: "/api/event", body: adjust });
      }
      let record;
      try {
        record = edited(form);
      } catch (error) {
        return say(`The event is not valid JSON: ${error.message}`);
      }
      const index = form.dataset.op === "insert" ? Number(form.index.value) : Number(form.dataset.index);
      const body = { op: form.dataset.op, index, event: record, reason, base: seq() };
      submit({ path: "/api/corrections", body });
    });
  }
})();
