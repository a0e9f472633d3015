(function () {
  "use strict";
  // The objects of the states' own (not tags), as the rebuild makes them or the data holds
  // them inside an `$object` tag: one whose only key is a tag's is an object all the same.
  var objects = new WeakSet();
  var tagNames = ["$double", "$unrepresentable", "$redacted", "$object"];
  var ownKey = Object.prototype.hasOwnProperty;
  // The tag `value` is, if it is an object of one key, a tag's: asked of every object a rebuild
  // sets a key in, so it looks for the tags' keys rather than list a state's many keys.
  function tagOf(value) {
    var found = null;
    for (var index = 0; index < tagNames.length; index++) {
      if (!ownKey.call(value, tagNames[index])) continue;
      if (found !== null) return null;
      found = tagNames[index];
    }
    if (found === null) return null;
    for (var key in value) {
      if (key !== found && ownKey.call(value, key)) return null;
    }
    return found;
  }
  // Read from the top down: an `$object` tag holds an object of the state's own, whose one key
  // is a tag's; what its values hold is read as anywhere else.
  function revive(value) {
    if (value === null || typeof value !== "object") return value;
    if (Array.isArray(value)) {
      for (var index = 0; index < value.length; index++) value[index] = revive(value[index]);
      return value;
    }
    var tag = tagOf(value);
    var object = value;
    if (tag === "$object" && value.$object !== null && typeof value.$object === "object" &&
        !Array.isArray(value.$object)) {
      object = value.$object;
      objects.add(object);
    } else if (tag !== null && tag !== "$object") {
      return value;
    }
    Object.keys(object).forEach(function (key) {
      var child = object[key];
      var revived = revive(child);
      if (revived !== child) put(object, key, revived);
    });
    return object;
  }
  var data = revive(JSON.parse(document.getElementById("journal-data").textContent));
  var mixes = data.mixes;
  var rows = document.querySelectorAll("#mixes [data-mix-serial]");
  var indexBySerial = new Map();
  mixes.forEach(function (mix, index) {
    var serial = String(mix.s);
    if (!indexBySerial.has(serial)) indexBySerial.set(serial, index);
  });
  var slider = document.getElementById("step");
  var selectedLabel = document.getElementById("selected-mix");
  var selectedInfo = document.getElementById("selected-info");
  var has = Object.prototype.hasOwnProperty;

  // A state as the journal writes it: whole doubles, secrets and unrepresentable values are
  // tagged objects, which count as values, not as objects to set keys in.
  function isObject(value) {
    if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
    if (objects.has(value)) return true;
    var tag = tagOf(value);
    return !((tag === "$double" && typeof value.$double === "string") ||
      (tag === "$unrepresentable" && typeof value.$unrepresentable === "string") ||
      (tag === "$redacted" && value.$redacted === true));
  }
  function put(object, key, value) {
    if (key === "__proto__") {
      var property = { value: value, writable: true, enumerable: true, configurable: true };
      Object.defineProperty(object, key, property);
    } else {
      object[key] = value;
    }
  }
  // The index `part` names in `root`, as JournalValue's index(_:in:appending:): decimal digits
  // alone, within the array or `past` places beyond its end; null for anything else (an
  // object's key that looks like a number stays a key).
  function arrayIndex(root, part, past) {
    if (!Array.isArray(root) || !/^[0-9]+$/.test(part)) return null;
    var index = Number(part);
    return index < root.length + past ? index : null;
  }
  // `root` as an object of the rebuild's own: itself when the rebuild made it, else a copy of it
  // (an empty object for anything that is no object), known to be an object whatever its keys.
  function ownedObject(root, owned) {
    if (isObject(root) && owned.has(root)) return root;
    var object = {};
    if (isObject(root)) Object.keys(root).forEach(function (key) { put(object, key, root[key]); });
    owned.add(object);
    objects.add(object);
    return object;
  }
  // `array` as the rebuild's own, copied first when it is shared.
  function ownedArray(array, owned) {
    var own = owned.has(array) ? array : array.slice();
    owned.add(own);
    return own;
  }
  // Sets `value` at the key whose components are `parts[at...]` in `root`, making the objects on the way, and
  // returns the new root. Objects the rebuild has not made itself (the starting states, the
  // recorded values) are copied before they change: they are shared.
  function setAt(root, parts, at, value, owned) {
    if (at === parts.length) return value;
    // An array's element, at its index (the journal records an array's changed elements so), or
    // a new one just past its end (a grown array's).
    var index = arrayIndex(root, parts[at], 1);
    if (index !== null) {
      var array = ownedArray(root, owned);
      array[index] = setAt(array[index], parts, at + 1, value, owned);
      return array;
    }
    var object = ownedObject(root, owned);
    var key = parts[at];
    var child = has.call(object, key) ? object[key] : null;
    put(object, key, setAt(child, parts, at + 1, value, owned));
    return object;
  }

  // Removes the key whose components are `parts[at...]` from `root`, as
  // JournalValue.remove(at:) does: an object's entry, or an array's element (those after it move
  // down; the journal records a shrunk array's elements from the last); a key not there changes
  // nothing.
  function removeAt(root, parts, at, owned) {
    var index = arrayIndex(root, parts[at], 0);
    if (index !== null) {
      var array = ownedArray(root, owned);
      if (at === parts.length - 1) {
        array.splice(index, 1);
      } else {
        array[index] = removeAt(array[index], parts, at + 1, owned);
      }
      return array;
    }
    if (!isObject(root) || !has.call(root, parts[at])) return root;
    var object = ownedObject(root, owned);
    if (at === parts.length - 1) {
      delete object[parts[at]];
    } else {
      put(object, parts[at], removeAt(object[parts[at]], parts, at + 1, owned));
    }
    return object;
  }

  var rebuilt = null;
  // Every substance's state after the mix at `index`, as MixJournal.Document.states(after:):
  // from the starting states, each change's new values in order (from its `r` first, for a
  // substance made again); aborted changes, changes without values and substances without a
  // starting state are skipped.
  function statesAfter(index) {
    if (rebuilt === null || rebuilt.index > index) {
      var states = new Map();
      Object.keys(data.start).forEach(function (name) { states.set(name, data.start[name]); });
      rebuilt = { index: -1, states: states, owned: new Set(), dirty: new Set(states.keys()) };
    }
    for (var at = rebuilt.index + 1; at <= index; at++) {
      var changes = mixes[at].c;
      for (var c = 0; c < changes.length; c++) {
        var change = changes[c];
        // A substance made again under a known name: its states start again from `r`.
        if (change.r !== undefined && !change.a) {
          rebuilt.states.set(change.n, change.r);
          rebuilt.dirty.add(change.n);
        }
        if (change.a || !change.v || !rebuilt.states.has(change.n)) continue;
        var state = rebuilt.states.get(change.n);
        for (var v = 0; v < change.v.length; v++) {
          var value = change.v[v];
          // A third element: the key no longer exists (removed, not set to null).
          state = value.length > 2 ? removeAt(state, value[0], 0, rebuilt.owned)
            : setAt(state, value[0], 0, value[1], rebuilt.owned);
        }
        rebuilt.states.set(change.n, state);
        rebuilt.dirty.add(change.n);
      }
    }
    rebuilt.index = Math.max(rebuilt.index, index);
    return rebuilt.states;
  }

  function isScalar(value) {
    return value === null || typeof value !== "object" || (!Array.isArray(value) && !isObject(value));
  }
  // JSON with two spaces of indentation, keys sorted; tagged values on one line, and arrays of
  // scalars as many to a line as fit.
  function pretty(value, indent, unwrapped) {
    if (isScalar(value)) return JSON.stringify(value);
    var inner = indent + "  ";
    if (Array.isArray(value)) {
      if (value.length === 0) return "[]";
      if (value.every(isScalar)) {
        var lines = [];
        var line = "";
        value.forEach(function (element, index) {
          var text = JSON.stringify(element) + (index < value.length - 1 ? "," : "");
          if (line && line.length + 1 + text.length > 56) {
            lines.push(line);
            line = text;
          } else {
            line = line ? line + " " + text : text;
          }
        });
        lines.push(line);
        if (lines.length === 1) return "[" + lines[0] + "]";
        return "[\n" + lines.map(function (text) { return inner + text; }).join("\n") + "\n" + indent + "]";
      }
      return "[\n" + value.map(function (element) { return inner + pretty(element, inner); }).join(",\n") +
        "\n" + indent + "]";
    }
    var keys = Object.keys(value).sort();
    if (keys.length === 0) return "{}";
    // An object whose only key is a tag's is shown inside an `$object` tag, as the journal
    // writes it, so that what is shown reads back as what it is.
    if (tagOf(value) !== null && !unwrapped) return "{\"$object\": " + pretty(value, indent, true) + "}";
    return "{\n" + keys.map(function (key) {
      return inner + JSON.stringify(key) + ": " + pretty(value[key], inner);
    }).join(",\n") + "\n" + indent + "}";
  }

  var panels = new Map();
  document.querySelectorAll("#state [data-state-substance]").forEach(function (element) {
    panels.set(element.getAttribute("data-state-substance"), { element: element });
  });

  var selected = -1;
  function select(index, options) {
    if (mixes.length === 0) return;
    index = Math.max(0, Math.min(mixes.length - 1, index));
    if (selected >= 0) rows[selected].classList.remove("selected");
    selected = index;
    var row = rows[index];
    row.classList.add("selected");
    slider.value = String(index);
    selectedLabel.textContent = String(mixes[index].s);
    var mixer = row.querySelector(".mixer");
    var time = row.querySelector("time");
    selectedInfo.textContent = (mixer ? mixer.textContent : "") + (time ? " · " + time.textContent : "") +
      " · " + (index + 1) + " of " + mixes.length;
    var states = statesAfter(index);
    var touched = new Set();
    mixes[index].c.forEach(function (change) { if (!change.a && change.v) touched.add(change.n); });
    panels.forEach(function (panel, name) {
      var state = states.get(name);
      // The rebuild changes the objects it made in place: what changed is in `dirty`.
      if (rebuilt.dirty.has(name)) panel.element.textContent = pretty(state, "");
      panel.element.parentElement.classList.toggle("touched", touched.has(name));
    });
    rebuilt.dirty.clear();
    if (options.scroll) row.scrollIntoView({ block: options.center ? "center" : "nearest" });
    if (options.hash) writeHash();
  }

  // The address's fragment: `#mix=N`, and the filters (`&substance=NAME&key=TEXT&name=TEXT`).
  function hashParameters() {
    var parameters = Object.create(null);
    location.hash.replace(/^#/, "").split("&").forEach(function (part) {
      var equals = part.indexOf("=");
      if (equals < 0) return;
      try {
        parameters[part.slice(0, equals)] = decodeURIComponent(part.slice(equals + 1));
      } catch (error) {
        // Not percent-encoded text: ignored.
      }
    });
    return parameters;
  }
  function fromHash() {
    var parameters = hashParameters();
    if (parameters.substance !== undefined) {
      var known = Array.prototype.some.call(substanceFilter.options, function (option) {
        return option.value === parameters.substance;
      });
      substanceFilter.value = known ? parameters.substance : "";
    }
    if (parameters.key !== undefined) keyFilter.value = parameters.key;
    if (parameters.name !== undefined) mixFilter.value = parameters.name;
    if (parameters.substance !== undefined || parameters.key !== undefined || parameters.name !== undefined) {
      filter();
    }
    if (parameters.mix === undefined) return -1;
    var index = indexBySerial.get(parameters.mix);
    // A serial not in the journal: the state after every mix, as states(after:) gives.
    return index === undefined ? mixes.length - 1 : index;
  }
  function writeHash() {
    if (selected < 0) return;
    var hash = "#mix=" + mixes[selected].s;
    if (substanceFilter.value) hash += "&substance=" + encodeURIComponent(substanceFilter.value);
    if (keyFilter.value) hash += "&key=" + encodeURIComponent(keyFilter.value);
    if (mixFilter.value) hash += "&name=" + encodeURIComponent(mixFilter.value);
    try { history.replaceState(null, "", hash); } catch (error) { location.replace(hash); }
  }

  function visible(index) { return !rows[index].hidden; }
  function step(direction) {
    for (var at = selected + direction; at >= 0 && at < mixes.length; at += direction) {
      if (visible(at)) { select(at, { scroll: true, hash: true }); return; }
    }
  }

  // Filters: each row's substances and keys, read from its markup the first time a filter is used.
  var filterIndex = null;
  var mixNames = null;
  var substanceFilter = document.getElementById("filter-substance");
  var keyFilter = document.getElementById("filter-key");
  var mixFilter = document.getElementById("filter-mix");
  var shown = document.getElementById("shown");
  function filter() {
    var substance = substanceFilter.value;
    var key = keyFilter.value.trim().toLowerCase();
    var mix = mixFilter.value.trim().toLowerCase();
    var count = 0;
    if (!substance && !key && !mix) {
      for (var all = 0; all < rows.length; all++) rows[all].hidden = false;
      shown.textContent = "";
      return;
    }
    if (filterIndex === null) {
      filterIndex = [];
      mixNames = [];
      rows.forEach(function (row) {
        var name = row.querySelector(".mixer");
        mixNames.push(name ? name.textContent.toLowerCase() : "");
        var parts = [];
        row.querySelectorAll("[data-substance]").forEach(function (element) {
          var key = element.getAttribute("data-key") || "";
          parts.push(element.getAttribute("data-substance"), key.toLowerCase());
        });
        filterIndex.push(parts);
      });
    }
    for (var index = 0; index < rows.length; index++) {
      var parts = filterIndex[index];
      var match = !substance && !key;
      for (var p = 0; p < parts.length && !match; p += 2) {
        match = (!substance || parts[p] === substance) && (!key || parts[p + 1].indexOf(key) >= 0);
      }
      if (mix && mixNames[index].indexOf(mix) < 0) match = false;
      rows[index].hidden = !match;
      if (match) count++;
    }
    shown.textContent = count + " of " + rows.length + " mixes shown";
  }
  substanceFilter.addEventListener("change", function () { filter(); writeHash(); });
  keyFilter.addEventListener("input", function () { filter(); writeHash(); });
  mixFilter.addEventListener("input", function () { filter(); writeHash(); });

  document.getElementById("prev").addEventListener("click", function () { step(-1); });
  document.getElementById("next").addEventListener("click", function () { step(1); });
  slider.addEventListener("input", function () {
    select(Number(slider.value), { scroll: true, hash: true });
  });
  document.getElementById("mixes").addEventListener("click", function (event) {
    // A link to another mix (an undo's "undoes #12") selects it, the filters kept in the address.
    var link = event.target.closest("a[href^='#mix=']");
    if (link) {
      event.preventDefault();
      var target = indexBySerial.get(link.getAttribute("href").slice("#mix=".length));
      if (target !== undefined) select(target, { scroll: true, center: true, hash: true });
      return;
    }
    var row = event.target.closest("[data-mix-serial]");
    if (!row) return;
    var index = indexBySerial.get(row.getAttribute("data-mix-serial"));
    if (index !== undefined) select(index, { scroll: false, hash: true });
  });
  document.addEventListener("keydown", function (event) {
    var target = event.target;
    if (target && /^(INPUT|SELECT|TEXTAREA)$/.test(target.tagName)) return;
    if (event.key === "ArrowLeft" || event.key === "k") { step(-1); event.preventDefault(); }
    if (event.key === "ArrowRight" || event.key === "j") { step(1); event.preventDefault(); }
  });
  window.addEventListener("hashchange", function () {
    var index = fromHash();
    if (index >= 0 && index !== selected) select(index, { scroll: true, center: true, hash: false });
  });

  var initial = fromHash();
  select(initial >= 0 ? initial : mixes.length - 1, { scroll: false, hash: false });

  function ready() {
    document.getElementById("ready-ms").textContent = performance.now().toFixed(1);
    // The mix of #mix=N is scrolled to once the page is ready: bringing a row into view lays
    // out the rows above it, which would hold the page back.
    if (initial >= 0) {
      setTimeout(function () { rows[initial].scrollIntoView({ block: "center" }); }, 0);
    }
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", ready);
  } else {
    ready();
  }
})();
