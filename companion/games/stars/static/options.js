// Among the Stars' setup options (stars/setup.html): the location types typed once, and the
// objectives tapped in, kept as the header's "types" and "objectives" for the setup page to send.
"use strict";

(() => {
  const typesBox = document.getElementById("stars-types");
  const objectivesBox = document.getElementById("stars-objectives");
  if (!typesBox || !objectivesBox) return;
  const typesField = typesBox.querySelector("input[name='option:types']");
  const objectivesField = objectivesBox.querySelector("input[name='option:objectives']");
  const rows = objectivesBox.querySelector(".stars-objective-rows");
  const template = document.getElementById("stars-objective-row");

  function types() {
    const names = [...typesBox.querySelectorAll(".stars-type")].map((input) => input.value.trim()).filter(Boolean);
    return [...new Set(names)];
  }

  // A row's list of types is drawn again only when the types change (or the row is new), so a
  // choice being made is never redrawn under the finger.
  function typeChoices(typeSelect, named) {
    const offered = [...typeSelect.options].map((option) => option.value);
    if (JSON.stringify(offered) === JSON.stringify(named)) return;
    const chosen = typeSelect.value;
    typeSelect.replaceChildren(...named.map((name) => new Option(name, name, false, name === chosen)));
  }

  function update() {
    const named = types();
    typesField.value = JSON.stringify(named);
    const objectives = [];
    for (const row of rows.querySelectorAll(".stars-objective-row")) {
      const kind = row.querySelector(".objective-kind").value;
      const typeSelect = row.querySelector(".objective-type");
      typeChoices(typeSelect, named);
      typeSelect.hidden = kind !== "most_type";
      const objective = { name: row.querySelector(".objective-name").value.trim(), kind, vp: Number(row.querySelector(".objective-vp").value) };
      if (kind === "most_type") objective.type = typeSelect.value;
      objectives.push(objective);
    }
    objectivesField.value = objectives.length ? JSON.stringify(objectives) : "";
  }

  document.getElementById("stars-add-objective").addEventListener("click", () => {
    rows.append(template.content.cloneNode(true));
    update();
  });
  rows.addEventListener("click", (event) => {
    if (event.target.classList.contains("objective-remove")) {
      event.target.closest("li").remove();
      update();
    }
  });
  typesBox.addEventListener("input", update);
  objectivesBox.addEventListener("input", update);
  objectivesBox.addEventListener("change", update);
  update();
})();
