/// The live session's page: one document, its style and script inline (the server's
/// Content-Security-Policy allows nothing else), that asks the session for new mixes when its
/// WebSocket says there are some (four times a second without it) and shows them.
///
/// It loads the newest 500 mixes first, then the earlier ones 20,000 at a time, keeps what it was
/// sent (as many as the session keeps) and draws the last 1,000 that match the filter, so that it
/// is usable at once and stays responsive with 100,000 mixes recorded: finding one among those
/// takes a filter.
enum LiveSessionPage {
    static let html = #"""
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <title>Flask live session</title>
        <style>
        body { font: 13px -apple-system, system-ui, sans-serif; margin: 0; color: #1d1d1f; background: #fafafa; }
        header { position: sticky; top: 0; background: #fff; border-bottom: 1px solid #ddd; padding: 8px 12px;
          display: flex; flex-wrap: wrap; gap: 8px; align-items: center; z-index: 1; }
        h1 { font-size: 15px; margin: 0 12px 0 0; }
        h2 { font-size: 13px; margin: 12px 0 4px; }
        #status { font-weight: 600; }
        #status.past { color: #b25000; }
        button, .button { font: inherit; padding: 3px 9px; border: 1px solid #bbb; border-radius: 5px; background: #fff;
          cursor: pointer; color: inherit; text-decoration: none; }
        button:disabled { opacity: .4; cursor: default; }
        #filter { flex: 1; min-width: 180px; padding: 4px 8px; }
        main { display: grid; grid-template-columns: minmax(0, 3fr) minmax(0, 2fr); gap: 12px; padding: 12px; }
        main > section { min-width: 0; overflow-x: auto; }
        /* A narrow window: the state and dispatch panels go under the mixes, not over them. */
        @media (max-width: 900px) { main { grid-template-columns: minmax(0, 1fr); } }
        table { border-collapse: collapse; width: 100%; background: #fff; }
        td { border-bottom: 1px solid #eee; padding: 4px 6px; vertical-align: top; }
        tr.mix { cursor: pointer; }
        tr.mix:hover { background: #f2f6ff; }
        tr.selected { background: #dde8ff !important; }
        tr.travel td { color: #b25000; }
        tr.current td:first-child { box-shadow: inset 3px 0 #b25000; }
        tr.aborted td, tr.stopped td { color: #999; }
        .serial { color: #888; width: 4em; text-align: right; }
        .mixer { font-weight: 600; white-space: nowrap; }
        .origin, .time { color: #888; font-size: 12px; white-space: nowrap; }
        .change { font-family: ui-monospace, Menlo, monospace; font-size: 12px; overflow-wrap: anywhere; }
        .old { color: #a00; } .new { color: #070; }
        pre { background: #fff; border: 1px solid #ddd; padding: 8px; overflow: auto; max-height: 55vh; margin: 0; }
        textarea { width: 100%; box-sizing: border-box; height: 90px; font-family: ui-monospace, Menlo, monospace; }
        #note { color: #888; padding: 0 12px; }
        .buttons { display: flex; gap: 4px; }
        </style>
        </head>
        <body>
        <header>
          <h1>Flask live session</h1>
          <select id="bus" title="the bus the page shows: each numbers its own mixes" hidden></select>
          <span id="status">connecting…</span>
          <span id="push" class="origin" title="how the page hears of new mixes">polling</span>
          <button id="back" title="the app to the mix before">◀ Back</button>
          <button id="forward" title="the app to the mix after">Forward ▶</button>
          <button id="present" title="the app to the last mix it made">Present</button>
          <button id="pause">Pause</button>
          <a id="export" class="button" download>Export</a>
          <label class="button">Import <input type="file" id="import" accept=".jsonl,.json,.txt" hidden></label>
          <button id="live" hidden>Back to live</button>
          <input id="filter" placeholder="filter by substance, mix or key">
        </header>
        <div id="note"></div>
        <main>
          <section><table><tbody id="rows"></tbody></table></section>
          <section>
            <h2 id="stateTitle">State</h2>
            <pre id="state">Select a mix to see every substance's state after it.</pre>
            <h2>Dispatch</h2>
            <select id="action"></select>
            <textarea id="fields" spellcheck="false">{}</textarea>
            <button id="send">Dispatch</button> <span id="sent"></span>
          </section>
        </main>
        <script>
        "use strict";
        const token = new URLSearchParams(location.search).get("token");
        const $ = (id) => document.getElementById(id);
        function api(path, params) {
          const url = new URL(path, location.origin);
          url.searchParams.set("token", token);
          url.searchParams.set("bus", bus);
          for (const [key, value] of Object.entries(params || {})) url.searchParams.set(key, value);
          return url;
        }
        let entries = [], last = 0, selected = null, imported = false, status = {}, pushed = false, bus = 0;
        // Until the newest mixes arrive, a poll would ask for every mix kept at once.
        let started = false, loadingEarlier = false, loads = 0, actionCount = 0;
        const shown = 1000;

        function text(value) {
          if (value === undefined) return "(none)";
          const json = JSON.stringify(value);
          return json.length > 160 ? json.slice(0, 159) + "…" : json;
        }
        // The words a filter looks in, made once per mix: a filter over 100,000 mixes then costs a
        // substring search per mix, not a join.
        function words(entry) {
          if (entry.words === undefined) {
            entry.words = [entry.mixer, entry.domain || "", ...entry.changes.map((c) => c.substance),
              ...entry.changes.flatMap((c) => c.keys)].join(" ").toLowerCase();
          }
          return entry.words;
        }
        function matches(entry, filter) {
          if (!filter) return true;
          const text = words(entry);
          return filter.toLowerCase().split(/\s+/).every((word) => text.includes(word));
        }
        // A value, cut to fit a row; whole on hover.
        function shownValue(className, value) {
          const span = document.createElement("span");
          span.className = className;
          span.textContent = text(value);
          span.title = JSON.stringify(value);
          return span;
        }
        function isTravel(entry) { return entry.kind === "task" && entry.mixer === "travel"; }
        function cell(row, className, content) {
          const td = row.insertCell();
          td.className = className;
          if (content instanceof Node) td.append(content); else td.textContent = content;
          return td;
        }
        function render() {
          if ($("fields").value === "{}") fillFields();
          const filter = $("filter").value.trim();
          const matching = entries.filter((entry) => matches(entry, filter));
          const rows = $("rows");
          rows.replaceChildren();
          const from = Math.max(0, matching.length - shown);
          for (const entry of matching.slice(from)) {
            const row = rows.insertRow();
            row.className = "mix" + (isTravel(entry) ? " travel" : "") + (entry.stop ? " stopped" : "")
              + (entry.serial === selected ? " selected" : "")
              + (entry.serial === status.travelledTo ? " current" : "");
            row.dataset.serial = entry.serial;
            cell(row, "serial", "#" + entry.serial);
            const name = entry.mixer ? (entry.domain ? entry.domain + "." : "") + entry.mixer : entry.domain;
            const kind = entry.kind === "task" && !isTravel(entry) ? " (task)"
              : entry.kind === "exclusiveMixer" ? " (exclusive)" : "";
            cell(row, "mixer", (isTravel(entry) ? "⟲ " : "") + name + kind);
            const changes = document.createElement("div");
            for (const change of entry.changes) {
              const line = document.createElement("div");
              line.className = "change";
              if (change.aborted) { line.textContent = change.substance + ": aborted"; }
              else if (!change.values) { line.textContent = change.substance + ": " + (change.keys.join(", ") || "no change"); }
              else {
                line.append(change.substance + ": ");
                change.values.forEach((value, index) => {
                  if (index) line.append("; ");
                  line.append(value.key + " ", shownValue("old", value.old), " → ", shownValue("new", value.new));
                });
              }
              changes.append(line);
            }
            if (entry.stop) changes.append("stopped by " + entry.stop.middleware + ": " + entry.stop.reason);
            if (entry.locksHeld && entry.locksHeld.length) {
              const locks = document.createElement("div");
              locks.className = "origin";
              locks.textContent = "locks held: " + entry.locksHeld.map((serial) => "#" + serial).join(", ");
              changes.append(locks);
            }
            cell(row, "", changes);
            cell(row, "origin", !entry.origin ? "" : entry.origin.line ? entry.origin.fileID + ":" + entry.origin.line
              : entry.origin.fileID);
            cell(row, "time", entry.microseconds.toFixed(0) + " µs");
            const jump = document.createElement("button");
            jump.textContent = "Jump";
            jump.className = "jump";
            jump.disabled = imported;
            jump.onclick = (event) => { event.stopPropagation(); travel(entry.serial); };
            const again = document.createElement("button");
            again.textContent = "Again";
            again.className = "again";
            again.title = "dispatch this mix again";
            again.disabled = imported || entry.kind === "task" || !!entry.stop;
            again.onclick = async (event) => {
              event.stopPropagation();
              const response = await fetch(api("/api/again", { serial: entry.serial }), { method: "POST" });
              $("sent").textContent = await response.text();
            };
            const buttons = document.createElement("div");
            buttons.className = "buttons";
            buttons.append(jump, again);
            cell(row, "", buttons);
            row.onclick = () => select(entry.serial);
          }
          showNote(from);
        }
        function showNote(notDrawn) {
          $("note").textContent = (loadingEarlier ? `loading earlier mixes (${entries.length} so far)… ` : "")
            + (notDrawn > 0 ? `${notDrawn} earlier matching mixes not drawn: filter to find them. ` : "")
            + (status.dropped ? `${status.dropped} older mixes dropped (keeps ${status.capacity}). ` : "");
        }
        function showStatus() {
          const element = $("status");
          // An imported file is browsed: nothing on the page moves the app meanwhile.
          for (const id of ["back", "forward", "present", "pause", "bus"]) $(id).disabled = imported;
          $("send").disabled = imported || !actionCount;
          if (imported) { element.textContent = "an imported session (not live)"; element.className = ""; return; }
          if (status.travelledTo != null) {
            const where = status.travelledTo === 0 ? "before the first mix" : `after mix #${status.travelledTo}`;
            element.textContent = `in the past: ${where} (new mixes branch from there)`;
            element.className = "past";
          } else {
            element.textContent = status.paused ? "paused" : `live: ${entries.length} mixes`;
            element.className = "";
          }
          $("pause").textContent = status.paused ? "Resume" : "Pause";
        }
        async function select(serial) {
          selected = serial;
          render();
          $("stateTitle").textContent = `State after mix #${serial}`;
          const response = await fetch(api("/api/states", imported ? { after: serial, imported: 1 } : { after: serial }));
          $("state").textContent = response.ok ? JSON.stringify(await response.json(), null, 2) : await response.text();
        }
        async function post(path, params) {
          const response = await fetch(api(path, params), { method: "POST" });
          return response.ok ? response.json().catch(() => ({})) : Promise.reject(await response.text());
        }
        async function travel(serial) {
          try {
            await post("/api/travel", { to: serial });
          } catch (error) {
            $("note").textContent = "The jump moved nothing: " + error;
            return;
          }
          await poll(true);
          select(serial);
        }
        // The mixes the app made itself (a jump is not a place to step to).
        function steps() { return entries.filter((entry) => !isTravel(entry)).map((entry) => entry.serial); }
        function step(by) {
          const serials = steps();
          if (!serials.length) return;
          const now = status.travelledTo != null ? status.travelledTo : serials[serials.length - 1];
          let index = serials.findIndex((serial) => serial >= now);
          if (index < 0) index = serials.length - 1;
          // Back from the first mix: before it (0, the states the journal starts from).
          travel(index + by < 0 ? 0 : serials[Math.min(serials.length - 1, index + by)]);
        }
        async function poll(once) {
          if (!imported && started) {
            try {
              const response = await fetch(api("/api/entries", { after: last }));
              const body = await response.json();
              status = body;
              // Two requests may overlap (a jump asks at once): an entry is kept once.
              for (const entry of body.entries) {
                if (entry.serial > last) { entries.push(entry); last = entry.serial; }
              }
              if (entries.length > body.capacity) entries.splice(0, entries.length - body.capacity);
              if (body.entries.length || once) render();
              showStatus();
            } catch (error) {
              $("status").textContent = "disconnected: is the app still running?";
            }
          }
          // With the socket open, it says when there is something new; a slow poll stays, in case.
          if (!once) setTimeout(poll, pushed ? 2000 : 250);
        }
        // A WebSocket on which the session says when there are new mixes: they are asked for at
        // once, rather than at the next poll. Without it (closed, refused), the page polls.
        let socket = null;
        function connect() {
          const url = api("/api/live");
          url.protocol = "ws:";
          socket = new WebSocket(url);
          socket.onopen = () => { pushed = true; $("push").textContent = "pushed"; };
          socket.onmessage = () => { if (!imported) poll(true); };
          socket.onclose = () => {
            pushed = false;
            $("push").textContent = "polling";
            setTimeout(connect, 2000);
          };
        }
        // Several buses: a menu chooses the one shown (its mixes, states, jumps, dispatches).
        async function loadBuses() {
          const labels = await (await fetch(api("/api/buses"))).json();
          $("bus").replaceChildren(...labels.map((label, index) => new Option(label, index)));
          $("bus").hidden = labels.length < 2;
        }
        $("bus").onchange = () => {
          bus = Number($("bus").value);
          selected = null;
          $("stateTitle").textContent = "State";
          $("state").textContent = "Select a mix to see every substance's state after it.";
          $("export").href = api("/api/export");
          // The socket of the bus shown before is closed, not reopened.
          socket.onclose = null;
          socket.close();
          connect();
          if (!imported) { entries = []; last = 0; start(false); }
        };
        async function loadActions() {
          const names = await (await fetch(api("/api/actions"))).json();
          $("action").replaceChildren(...names.map((name) => new Option(name, name)));
          actionCount = names.length;
          $("send").disabled = imported || !names.length;
          if (!names.length) $("sent").textContent = "register actions with LiveSession.start(actions:)";
          fillFields();
        }
        function fillFields() {
          const name = $("action").value;
          const lastOne = [...entries].reverse().find((entry) => !entry.mixer && entry.domain === name && entry.action);
          $("fields").value = lastOne ? JSON.stringify(lastOne.action, null, 2) : "{}";
        }
        $("action").onchange = fillFields;
        $("send").onclick = async () => {
          const response = await fetch(api("/api/dispatch", { action: $("action").value }),
            { method: "POST", body: $("fields").value });
          $("sent").textContent = await response.text();
        };
        $("back").onclick = () => step(-1);
        $("forward").onclick = () => step(1);
        $("present").onclick = async () => { await post("/api/present"); await poll(true); };
        $("pause").onclick = async () => { await post(status.paused ? "/api/resume" : "/api/pause"); await poll(true); };
        // Drawn once typing pauses, not at each key.
        let typing = null;
        $("filter").oninput = () => { clearTimeout(typing); typing = setTimeout(render, 150); };
        $("export").href = api("/api/export");
        // An exported session, read by the session (as flask-journal reads it) so that the state
        // panel shows its states too.
        $("import").onchange = async () => {
          const file = $("import").files[0];
          if (!file) return;
          const response = await fetch(api("/api/import"), { method: "POST", body: await file.text() });
          if (!response.ok) { $("note").textContent = await response.text(); return; }
          entries = (await response.json()).entries;
          imported = true;
          selected = null;
          $("live").hidden = false;
          render();
          showStatus();
        };
        $("live").onclick = () => {
          imported = false; entries = []; last = 0; $("live").hidden = true; $("import").value = "";
          start(false);
        };
        // The newest mixes first, so that the page is usable at once; then the earlier ones, a
        // chunk at a time, while new ones keep arriving.
        async function start(polls) {
          const load = ++loads;
          started = false;
          try {
            const body = await (await fetch(api("/api/entries", { newest: 500 }))).json();
            status = body;
            entries = body.entries;
            last = entries.length ? entries[entries.length - 1].serial : 0;
          } catch (error) {
            $("status").textContent = "disconnected: is the app still running?";
            setTimeout(() => start(polls), 1000);
            return;
          }
          started = true;
          loadingEarlier = entries.length > 0;
          render();
          showStatus();
          if (polls) poll();
          while (loadingEarlier && !imported && load === loads) {
            const body = await (await fetch(api("/api/entries", { before: entries[0].serial, newest: 20000 }))).json();
            // An import, or Back to live, started over meanwhile.
            if (!body.entries.length || imported || load !== loads) break;
            entries = body.entries.concat(entries);
            if (entries.length > body.capacity) entries.splice(0, entries.length - body.capacity);
            // Earlier mixes change the rows drawn (the last 1,000 that match) only under a filter.
            if ($("filter").value.trim()) render(); else showNote(entries.length - shown);
            showStatus();
          }
          if (load !== loads) return;
          loadingEarlier = false;
          if (!imported) render();
        }
        start(true);
        connect();
        loadBuses();
        loadActions();
        </script>
        </body>
        </html>
        """#
}
