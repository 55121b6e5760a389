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

miniquad_add_plugin({
    name: "sandglass",
    version: 2,
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

// The viewer's glyph-size keys (Control and Plus, Minus or 0; PageUp, PageDown) are the
// viewer's: the browser would zoom or scroll the page with them as well.
const SANDGLASS_SIZE_KEYS = ["Equal", "Minus", "Digit0", "NumpadAdd", "NumpadSubtract", "Numpad0"];
window.addEventListener("keydown", function (event) {
    const sized = event.ctrlKey && SANDGLASS_SIZE_KEYS.includes(event.code);
    if (sized || event.code === "PageUp" || event.code === "PageDown") {
        event.preventDefault();
    }
});
