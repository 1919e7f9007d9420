// Joining the table: with the PIN, a player's invite, or as the first phone; leaving; making
// every other phone join again.
"use strict";

(() => {
  const { join, send, say } = Companion;

  async function joinWith(body) {
    try {
      await join(body);
      const next = new URLSearchParams(window.location.search).get("next");
      const back = next ? new URL(next, window.location.origin) : null; // only back to this site
      window.location.href = back && back.origin === window.location.origin ? back.pathname + back.hash : "/join";
    } catch (error) {
      say(error.message);
    }
  }

  const pin = document.getElementById("join-pin");
  if (pin) {
    pin.addEventListener("submit", (event) => {
      event.preventDefault();
      joinWith({ pin: pin.pin.value.trim() });
    });
  }
  const invited = document.getElementById("join-invite");
  if (invited) invited.addEventListener("click", () => joinWith({ invite: invited.dataset.invite }));
  const first = document.getElementById("join-first");
  if (first) first.addEventListener("click", () => joinWith({ first: true }));

  const leave = document.getElementById("leave");
  if (leave) {
    leave.addEventListener("click", async () => {
      await join({ leave: true }).catch((error) => say(error.message));
      window.location.reload();
    });
  }
  const startOver = document.getElementById("start-over");
  if (startOver) {
    startOver.addEventListener("click", async () => {
      if (!window.confirm("Every other phone will have to join again. Go on?")) return;
      try {
        await send("/api/join/start-over", {});
        window.location.reload();
      } catch (error) {
        say(error.message);
      }
    });
  }
})();
