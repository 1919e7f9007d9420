// The timeline is drawn again by the server whenever the game changes.
"use strict";

Companion.follow("timeline", document.getElementById("timeline-part"));
