// Shared by every page: the live stream of the game, and changes sent with the CSRF token and PIN.
"use strict";

const Companion = (() => {
  const csrf = () => document.querySelector('meta[name="csrf-token"]').content;

  // The connection line (#live): quiet while the page keeps up; a banner along the bottom of the
  // screen while what it shows may be out of date, wherever the phone is scrolled. The stream
  // says how it is connected; a live part that could not be fetched says so over it until fetched.
  let stream = [false, "connecting…"];
  let partBehind = false;
  function show(on, text) {
    const status = document.getElementById("live");
    if (!status) return;
    status.className = `live muted ${on ? "on" : "off"}`;
    status.textContent = text;
  }
  function streamSays(on, text) {
    stream = [on, text];
    if (!partBehind) show(on, text);
  }
  function partBehindSays(behind) {
    if (behind === partBehind) return;
    partBehind = behind;
    if (behind) show(false, "not up to date, trying again…");
    else show(...stream);
  }

  // Calls onState with the game's state now and after every change. Server-Sent Events first;
  // if the browser has none, polling. EventSource reconnects by itself after a drop.
  function subscribe(onState) {
    if (!window.EventSource) {
      const poll = () => fetch("/api/state", { cache: "no-store" })
        .then((r) => r.json()).then((s) => { streamSays(true, "updating"); onState(s); })
        .catch(() => streamSays(false, "no connection, retrying"));
      poll();
      setInterval(poll, 3000);
      return;
    }
    const source = new EventSource("/api/events");
    // A page left for another keeps its stream open while the browser holds it for "back": six
    // such and the phone has no connection left to the companion. Closed on leaving; a page
    // brought back that way is loaded afresh (what it shows is old, its stream closed).
    window.addEventListener("pagehide", () => source.close());
    window.addEventListener("pageshow", (event) => { if (event.persisted) window.location.reload(); });
    source.addEventListener("state", (message) => {
      streamSays(true, "live");
      onState(JSON.parse(message.data));
    });
    source.addEventListener("error", () => {
      if (source.readyState !== EventSource.CLOSED) return streamSays(false, "reconnecting…");
      // Refused (too many scoreboards open): EventSource gives up, so keep the page fresh by asking.
      streamSays(true, "updating every 5 s"); // up to date, if 5 s late: no alarm
      setInterval(() => fetch("/api/state", { cache: "no-store" }).then((r) => r.json()).then(onState).catch(() => {}), 5000);
    });
  }

  // The journal entry this page was drawn from: a change made on it says so, and the companion
  // refuses it (409) if the game has moved on meanwhile, instead of changing the wrong event.
  const seq = () => Number(document.body.dataset.seq || 0);

  // POST a JSON body; returns the answer's JSON, or throws an Error with the server's message.
  // A phone that has not joined the table is sent to the Join page, and comes back after.
  async function post(path, body, extra) {
    const response = await fetch(path, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf(), ...extra },
      body: JSON.stringify(body),
    });
    const answer = await response.json().catch(() => ({ message: `the companion answered ${response.status}` }));
    return { response, answer };
  }

  async function send(path, body) {
    const { response, answer } = await post(path, body, { "X-Base-Seq": String(seq()) });
    if (response.ok) return answer;
    if (response.status === 401) {
      window.location.href = `/join?next=${encodeURIComponent(window.location.pathname + window.location.hash)}`;
      throw new Error("This phone has not joined the table yet: join it first.");
    }
    if (response.status === 409 && /has changed/.test(answer.message)) {
      throw new Error("The game changed while this page was open (another phone or the camera), so nothing was changed: reload the page to see it as it is now, then try again.");
    }
    throw new Error(answer.message || `error ${response.status}`);
  }

  async function join(body) {
    const { response, answer } = await post("/api/join", body, {});
    if (!response.ok) throw new Error(answer.message || `error ${response.status}`);
    return answer;
  }

  // The page's message (#message): over the top of the screen, however far down the button was
  // (a refusal must not be said out of sight). A tap puts it away; good news goes by itself after
  // a few seconds unless ``keep`` (something to read at leisure).
  let saidFor = null;
  function say(text, ok, keep) {
    const box = document.getElementById("message");
    if (!box) return;
    box.textContent = text;
    box.className = ok ? "message ok" : "message";
    box.onclick = () => { box.textContent = ""; };
    clearTimeout(saidFor);
    if (ok && text && !keep) saidFor = setTimeout(() => { if (box.textContent === text) box.textContent = ""; }, 8000);
  }

  function el(tag, text, className) {
    const node = document.createElement(tag);
    if (text !== undefined) node.textContent = text;
    if (className) node.className = className;
    return node;
  }

  const signed = (n) => (n >= 0 ? `+${n}` : String(n));

  // Times are stored in UTC; people read them in their own time zone.
  function localTimes(root) {
    for (const node of root.querySelectorAll("time[datetime]")) {
      const when = new Date(node.getAttribute("datetime"));
      if (!Number.isNaN(when.getTime())) node.textContent = when.toLocaleString([], { dateStyle: node.dataset.date ? "medium" : undefined, timeStyle: "medium" });
    }
  }
  localTimes(document);

  // Keeps a live part of the page as the server draws it: whenever the game changes, the part
  // (/parts/NAME, the same template the page was drawn with) takes the place of ``holder``'s
  // content. ``remember`` reads what the part showed before, ``after`` gets it once swapped.
  function follow(name, holder, after, remember) {
    let shown = null;
    let asked = 0; // only the answer to the latest question is drawn
    let retry = null;
    async function draw(key) {
      clearTimeout(retry);
      const question = ++asked;
      const response = await fetch(`/parts/${name}`, { cache: "no-store" }).catch(() => null);
      const html = response && response.ok ? await response.text().catch(() => null) : null;
      if (question !== asked) return;
      if (html === null) {
        // a wifi blip: the page must not stay behind while the stream says live
        shown = null;
        partBehindSays(true);
        retry = setTimeout(() => { if (question === asked) { shown = key; draw(key); } }, 3000);
        return;
      }
      partBehindSays(false);
      const game = /data-game="([^"]*)"/.exec(html);
      if (game && game[1] !== (document.body.dataset.game || "")) {
        location.reload(); // another game: its own styles and scripts come with the whole page
        return;
      }
      const before = remember ? remember() : null;
      holder.innerHTML = html;
      localTimes(holder);
      const now = holder.querySelector("[data-seq]");
      if (now) document.body.dataset.seq = now.dataset.seq;
      if (after) after(before);
    }
    subscribe((state) => {
      const key = JSON.stringify([state.seq, state.prompts, state.camera, state.trays, state.source]);
      if (key === shown) return;
      const drawn = holder.querySelector("[data-seq]");
      if (shown === null && asked === 0 && drawn && Number(drawn.dataset.seq) === state.seq) {
        shown = key; // the first state is the one the page was drawn from: nothing to draw again
        return;
      }
      shown = key;
      draw(key);
    });
  }

  return { subscribe, follow, send, join, say, el, signed, seq };
})();
