// Describing a tile by tapping (the fix page's "Enter a tile", the enrolment page): each side is
// open space, a trade route or an asteroid field, one tap each, and the tile is written as
// records.md's inline tile, as it lies.
"use strict";

const TileEntry = (() => {
  const KIND_NAMES = { space: "space", route: "trade route", asteroid: "asteroid field", planet: "planet" };
  const ORDER = ["N", "E", "S", "W"];

  function kinds(form) {
    return Object.fromEntries(ORDER.map((side) => [side, form[`side-${side}`].value]));
  }

  function tile(form) {
    const kindOf = kinds(form);
    const sidesOf = (kind) => ORDER.filter((side) => kindOf[side] === kind);
    const features = [];
    const routes = sidesOf("route");
    if (routes.length === 2 && form["routes-join"].checked) features.push({ kind: "route", edges: routes.join("") });
    else routes.forEach((side) => features.push({ kind: "route", edges: side }));
    const fields = sidesOf("asteroid");
    if (fields.length > 1 && form["fields-join"].checked) features.push({ kind: "asteroid", edges: fields.join("") });
    else fields.forEach((side) => features.push({ kind: "asteroid", edges: side }));
    for (const [name, kind] of [["route-symbol", "route"], ["field-symbol", "asteroid"]]) {
      const feature = features.find((f) => f.kind === kind);
      if (form[name].value && feature) feature.symbols = [form[name].value];
    }
    if (form.planet.value !== "none") {
      features.push(form.planet.value ? { kind: "planet", symbols: [form.planet.value] } : { kind: "planet" });
    }
    return { features };
  }

  function described(value) {
    if (!value.features.length) return "Open space only.";
    return value.features.map((f) => `${KIND_NAMES[f.kind]}${f.edges ? ` ${f.edges}` : ""}${f.symbols ? ` [${f.symbols.join(", ")}]` : ""}`).join("; ");
  }

  // Only the questions the sides call for: a join needs two routes or two asteroid sides, a
  // symbol on a route needs a route.
  function refresh(form) {
    const counts = Object.values(kinds(form)).reduce((n, kind) => ({ ...n, [kind]: (n[kind] || 0) + 1 }), {});
    const show = { "routes-join": counts.route === 2, "fields-join": counts.asteroid > 1, routes: counts.route > 0, fields: counts.asteroid > 0 };
    for (const [name, shown] of Object.entries(show)) {
      for (const element of form.querySelectorAll(`.if-${name}`)) element.hidden = !shown;
    }
    form.querySelector(".tile-preview").textContent = described(tile(form));
  }

  function check(form, name, value) {
    const radio = form.querySelector(`input[name="${name}"][value="${value}"]`);
    if (radio) radio.checked = true;
  }

  // The form set to ``value`` (records.md's inline tile, as it lies): the reverse of tile().
  function fill(form, value) {
    const routes = value.features.filter((f) => f.kind === "route");
    const fields = value.features.filter((f) => f.kind === "asteroid");
    for (const side of ORDER) check(form, `side-${side}`, "space");
    for (const feature of [...routes, ...fields]) {
      for (const side of feature.edges) check(form, `side-${side}`, feature.kind);
    }
    form["routes-join"].checked = routes.length <= 1;
    form["fields-join"].checked = fields.length <= 1;
    const planet = value.features.find((f) => f.kind === "planet");
    check(form, "planet", planet ? (planet.symbols || [""])[0] : "none");
    for (const [name, features] of [["route-symbol", routes], ["field-symbol", fields]]) {
      const marked = features.find((f) => f.symbols && f.symbols.length);
      check(form, name, marked ? marked.symbols[0] : "");
    }
    refresh(form);
  }

  // Wires the form; returns what the form says, a way back to a blank tile and a way to fill it in.
  function attach(form) {
    form.addEventListener("change", () => refresh(form));
    const reset = () => {
      for (const box of form.querySelectorAll('input[type="checkbox"]')) box.checked = true;
      for (const radio of form.querySelectorAll('input[type="radio"]')) radio.checked = ["none", "space"].includes(radio.value) || (radio.value === "" && radio.name !== "planet");
      refresh(form);
    };
    refresh(form);
    return { tile: () => tile(form), reset, fill: (value) => fill(form, value) };
  }

  return { attach, described };
})();
