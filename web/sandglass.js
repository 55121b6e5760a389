// What the viewer (client/src/window/web/page.rs) asks of the page and tells it,
// registered with miniquad's loader (mq_js_bundle.js) as functions the .wasm imports.
// What it tells is also logged on the console, prefixed `sandglass `, for tests.
"use strict";

// Copies `text` into the module's memory at `ptr`, up to `len` bytes of UTF-8.
function sandglass_write(text, ptr, len) {
    const bytes = new TextEncoder().encode(text);
    new Uint8Array(wasm_memory.buffer, ptr, len).set(bytes.subarray(0, len));
}

function sandglass_read(ptr, len) {
    return new TextDecoder().decode(new Uint8Array(wasm_memory.buffer, ptr, len));
}

function sandglass_query(name) {
    return new URLSearchParams(window.location.search).get(name) || "";
}

// A live game (`?live=URL`): the page's EventSource, and what it said that the viewer has
// not yet taken, oldest first, each `{kind, first, bytes}`. The kinds, as page.rs reads
// them: 1 header, 2 events (decoded from base64 here), 3 end, 4 the connection dropped,
// 5 a message the page refuses (its words). The viewer decides when to connect again.
const SANDGLASS_MOST_LINE = 1 << 20;
// `heard` is when the source last said anything, `alive` included, or was opened.
const sandglass_live = { source: null, queue: [], heard: 0 };

function sandglass_live_say(kind, text, first) {
    sandglass_live.queue.push({ kind: kind, first: first || 0, bytes: new TextEncoder().encode(text) });
}

function sandglass_live_close() {
    if (sandglass_live.source) {
        sandglass_live.source.close();
        sandglass_live.source = null;
    }
}

// An `events` message's data, `FIRST BASE64`, decoded; or its refusal, said.
function sandglass_live_events(data) {
    if (data.length > SANDGLASS_MOST_LINE) {
        return "the server sent a line longer than " + SANDGLASS_MOST_LINE + " bytes";
    }
    const space = data.indexOf(" ");
    const first = Number(data.slice(0, space));
    if (space < 1 || !Number.isSafeInteger(first) || first < 0) {
        return "a stretch of events begins at no index";
    }
    let binary;
    try {
        binary = atob(data.slice(space + 1).trim());
    } catch (error) {
        return "a stretch of events is no base64";
    }
    const bytes = Uint8Array.from(binary, function (c) { return c.charCodeAt(0); });
    sandglass_live.queue.push({ kind: 2, first: first, bytes: bytes });
    return null;
}

function sandglass_live_open(url) {
    sandglass_live_close();
    sandglass_live.queue = [];
    if (!url) {
        return;
    }
    console.log("sandglass live: " + url);
    const source = new EventSource(url);
    sandglass_live.source = source;
    sandglass_live.heard = performance.now();
    const mine = function (listener) {
        return function (event) {
            if (sandglass_live.source === source) {
                sandglass_live.heard = performance.now();
                listener(event);
            }
        };
    };
    source.addEventListener("header", mine(function (event) {
        sandglass_live_say(1, event.data);
    }));
    source.addEventListener("events", mine(function (event) {
        const refused = sandglass_live_events(event.data);
        if (refused) {
            sandglass_live_say(5, refused);
            sandglass_live_close();
        }
    }));
    // Said every 15 seconds of quiet, so that a silent connection can be told from one
    // that has nothing to say.
    source.addEventListener("alive", mine(function () {}));
    // The server is stopping: the viewer connects again from what it holds, as on a
    // drop, and says why.
    source.addEventListener("stopping", mine(function (event) {
        sandglass_live_close();
        sandglass_live_say(4, event.data);
    }));
    source.addEventListener("end", mine(function (event) {
        sandglass_live_say(3, event.data);
        sandglass_live_close();
    }));
    // A browser would reconnect by itself from the last `id:`; the viewer does it from
    // what it holds, as the native one does.
    source.onerror = mine(function () {
        sandglass_live_close();
        sandglass_live_say(4, "the connection dropped");
    });
}

miniquad_add_plugin({
    name: "sandglass",
    version: 4,
    register_plugin: function (importObject) {
        const env = importObject.env;
        env.sandglass_replay_url_length = function () {
            return new TextEncoder().encode(sandglass_query("replay")).length;
        };
        env.sandglass_replay_url = function (ptr, len) {
            sandglass_write(sandglass_query("replay"), ptr, len);
        };
        // `&speed=N`, 1 to 64 (0 when absent or not a number).
        env.sandglass_speed = function () {
            const speed = parseInt(sandglass_query("speed"), 10);
            return Number.isFinite(speed) ? Math.min(Math.max(speed, 0), 64) : 0;
        };
        // `&turn=N`, the turn to open the replay at (-1 when absent or not a number).
        env.sandglass_turn = function () {
            const turn = parseInt(sandglass_query("turn"), 10);
            return Number.isFinite(turn) && turn >= 0 ? turn : -1;
        };
        // `?live=URL`, a game to watch as it is played.
        env.sandglass_live_url_length = function () {
            return new TextEncoder().encode(sandglass_query("live")).length;
        };
        env.sandglass_live_url = function (ptr, len) {
            sandglass_write(sandglass_query("live"), ptr, len);
        };
        // Connects to the stream at the URL given (closing the one before); "" closes it.
        env.sandglass_live_open = function (ptr, len) {
            sandglass_live_open(sandglass_read(ptr, len));
        };
        // The kind of the oldest message not yet taken (0: none), its first event and its
        // length; taking it copies its bytes and forgets it.
        // When the stream last said anything (`performance.now()`).
        env.sandglass_live_heard_ms = function () {
            return sandglass_live.heard;
        };
        env.sandglass_live_next = function () {
            return sandglass_live.queue.length ? sandglass_live.queue[0].kind : 0;
        };
        env.sandglass_live_first = function () {
            return sandglass_live.queue.length ? sandglass_live.queue[0].first : 0;
        };
        env.sandglass_live_length = function () {
            return sandglass_live.queue.length ? sandglass_live.queue[0].bytes.length : 0;
        };
        env.sandglass_live_take = function (ptr, len) {
            const message = sandglass_live.queue.shift();
            if (message) {
                new Uint8Array(wasm_memory.buffer, ptr, len).set(message.bytes.subarray(0, len));
            }
        };
        env.sandglass_now_ms = function () {
            return performance.now();
        };
        // The verdict on a file, as `sandglass verify` prints it, and as `verify --json`.
        env.sandglass_verdict = function (ptr, len, json_ptr, json_len, ok) {
            const line = sandglass_read(ptr, len);
            const json = sandglass_read(json_ptr, json_len);
            const verdict = document.getElementById("verdict");
            verdict.textContent = line;
            verdict.dataset.json = json;
            verdict.className = ok ? "ok" : "fail";
            document.title = "Sandglass: " + line;
            console.log("sandglass verdict: " + line);
            console.log("sandglass json: " + json);
        };
        // What the viewer is doing, in a few words ("checking x.sgr", "watching x.sgr").
        env.sandglass_status = function (ptr, len) {
            const status = sandglass_read(ptr, len);
            document.getElementById("status").textContent = status;
            console.log("sandglass status: " + status);
        };
        // The frames drawn in the last second, and the viewer's own work in each.
        env.sandglass_frame_rate = function (fps, work_ms) {
            const rate = document.getElementById("fps");
            rate.textContent = fps.toFixed(1) + " frames per second";
            rate.dataset.fps = fps;
            console.log("sandglass frames per second: " + fps.toFixed(1) +
                        ", work " + work_ms.toFixed(1) + " ms a frame");
        };
    },
});

// Until a live game's verdict comes, the line where it will stand says what is watched.
if (sandglass_query("live")) {
    document.getElementById("verdict").textContent =
        "Watching " + sandglass_query("live") + " as it is played.";
}

// The viewer's glyph-size keys (Control and Plus, Minus or 0; PageUp, PageDown) are the
// viewer's: the browser would zoom or scroll the page with them as well.
const SANDGLASS_SIZE_KEYS = ["Equal", "Minus", "Digit0", "NumpadAdd", "NumpadSubtract", "Numpad0"];
window.addEventListener("keydown", function (event) {
    const sized = event.ctrlKey && SANDGLASS_SIZE_KEYS.includes(event.code);
    if (sized || event.code === "PageUp" || event.code === "PageDown") {
        event.preventDefault();
    }
});
