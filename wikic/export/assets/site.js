/* wikic site: search, evidence on hover, highlighted source lines, graphs. Plain JavaScript, no network. */
(function () {
  "use strict";
  var body = document.body;
  var root = body.getAttribute("data-root") || "";
  var here = body.getAttribute("data-path") || "";

  // -- search over titles, aliases and leads ---------------------------------------------------------------
  var input = document.getElementById("search");
  var results = document.getElementById("search-results");
  var entries = window.WIKIC_SEARCH || [];
  function search(query) {
    var terms = query.toLowerCase().split(/\s+/).filter(Boolean);
    if (!terms.length) return [];
    var found = [];
    entries.forEach(function (e) {
      var title = e.t.toLowerCase(), aliases = (e.a || []).join(" \u0001 ").toLowerCase();
      var all = title + " \u0001 " + aliases + " \u0001 " + (e.l || "").toLowerCase();
      if (!terms.every(function (t) { return all.indexOf(t) >= 0; })) return;
      var score = terms.every(function (t) { return title.indexOf(t) >= 0; }) ? 0
        : terms.every(function (t) { return (title + aliases).indexOf(t) >= 0; }) ? 1 : 2;
      found.push([score, e]);
    });
    found.sort(function (a, b) { return a[0] - b[0] || a[1].t.localeCompare(b[1].t); });
    return found.slice(0, 20).map(function (f) { return f[1]; });
  }
  function show(list) {
    results.textContent = "";
    list.forEach(function (e) {
      var li = document.createElement("li"), a = document.createElement("a"), lead = document.createElement("span");
      a.href = root + e.u;
      a.textContent = e.t;
      lead.className = "lead";
      var alias = (e.a || []).filter(function (x) {
        return x.toLowerCase().indexOf(input.value.trim().toLowerCase()) >= 0;
      })[0];
      lead.textContent = (alias ? "alias: " + alias + " \u2014 " : "") + (e.l || "");
      li.appendChild(a);
      li.appendChild(lead);
      results.appendChild(li);
    });
    results.hidden = !list.length;
  }
  if (input && results) {
    input.addEventListener("input", function () { show(search(input.value)); });
    input.addEventListener("keydown", function (ev) {
      var first = results.querySelector("a");
      if (ev.key === "Enter" && first) window.location.href = first.href;
      if (ev.key === "Escape") { input.value = ""; show([]); }
    });
    document.addEventListener("click", function (ev) {
      if (!results.contains(ev.target) && ev.target !== input) results.hidden = true;
    });
  }

  // -- evidence: a citation's quoted lines on hover, focus or tap -----------------------------------------------
  var popup = null, owner = null;
  function hide() { if (popup) { popup.remove(); popup = null; owner = null; } }
  function evidence(a) {
    if (owner === a) return;
    hide();
    var quote = a.getAttribute("data-quote");
    popup = document.createElement("div");
    popup.className = "evidence";
    popup.setAttribute("role", "tooltip");
    var head = document.createElement("div"), pre = document.createElement("pre");
    head.className = "evidence-source";
    head.textContent = a.getAttribute("data-source") + " L" + a.getAttribute("data-lines").replace("-", "-L") +
      (a.classList.contains("drifted") ? " \u2014 drifted: the source changed since this was written" : "");
    pre.textContent = quote === null ? "(these lines are no longer in the source)" : quote;
    popup.appendChild(head);
    popup.appendChild(pre);
    document.body.appendChild(popup);
    var box = a.getBoundingClientRect();
    popup.style.left = Math.max(8, Math.min(window.scrollX + box.left, window.scrollX + document.documentElement.clientWidth - popup.offsetWidth - 8)) + "px";
    popup.style.top = (window.scrollY + box.bottom + 6) + "px";
    owner = a;
  }
  Array.prototype.forEach.call(document.querySelectorAll("a.cite[data-lines]"), function (a) {
    a.addEventListener("mouseenter", function () { evidence(a); });
    a.addEventListener("focus", function () { evidence(a); });
    a.addEventListener("mouseleave", hide);
    a.addEventListener("blur", hide);
    a.addEventListener("touchstart", function (ev) {
      if (owner !== a) { ev.preventDefault(); evidence(a); }
    }, { passive: false });
    a.addEventListener("click", function (ev) {
      var lines = a.getAttribute("data-lines");
      if (a.href && lines.indexOf("-") > 0 && !ev.ctrlKey && !ev.metaKey && !ev.shiftKey && ev.button === 0) {
        ev.preventDefault();
        window.location.href = a.href + "-L" + lines.split("-")[1];
      }
    });
  });

  // -- a raw source's page: the cited lines highlighted (#L10 or #L10-L12) ------------------------------------
  function highlight() {
    var m = /^#L(\d+)(?:-L?(\d+))?$/.exec(window.location.hash);
    Array.prototype.forEach.call(document.querySelectorAll(".line.hit"), function (l) { l.classList.remove("hit"); });
    if (!m) return;
    var start = +m[1], end = m[2] ? +m[2] : start;
    for (var n = start; n <= end; n++) {
      var line = document.getElementById("L" + n);
      if (line) line.classList.add("hit");
    }
    var first = document.getElementById("L" + start);
    if (first) first.scrollIntoView({ block: "center" });
  }
  if (document.querySelector(".raw-source")) {
    highlight();
    window.addEventListener("hashchange", highlight);
  }

  // -- graphs: the whole link graph, and each page's neighbourhood ----------------------------------------------
  var data = window.WIKIC_GRAPH;
  var palette = ["#4b49b6", "#d1495b", "#2e933c", "#edae49", "#00798c", "#8e5ea2", "#c36f09", "#3c6e71",
                 "#e07a5f", "#6a4c93", "#1982c4", "#8ac926"];
  function colour(g) { return g < 0 ? "#9e9e9e" : palette[g % palette.length]; }
  function draw(container, nodes, edges, layout) {
    if (!window.cytoscape || !container) return null;
    var elements = nodes.map(function (n) {
      var node = data.nodes[n];  // [path, title, url, cluster]
      return { data: { id: "n" + n, label: node[1], colour: colour(node[3]), url: node[2], here: node[0] === here ? 1 : 0 } };
    }).concat(edges.map(function (e, k) { return { data: { id: "e" + k, source: "n" + e[0], target: "n" + e[1] } }; }));
    var cy = window.cytoscape({
      container: container, elements: elements, layout: layout, wheelSensitivity: 0.3,
      style: [
        { selector: "node", style: { "background-color": "data(colour)", label: "data(label)", "font-size": 9,
          color: "#333", width: 12, height: 12, "text-valign": "bottom", "text-margin-y": 2,
          "text-wrap": "ellipsis", "text-max-width": 140, "min-zoomed-font-size": nodes.length > 400 ? 8 : 0 } },
        { selector: "node[here = 1]", style: { width: 20, height: 20, "border-width": 2, "border-color": "#111" } },
        { selector: "edge", style: { width: 1, "line-color": "#c8c8c8", "curve-style": "haystack" } }
      ]
    });
    cy.on("tap", "node", function (ev) { window.location.href = root + ev.target.data("url"); });
    container.setAttribute("data-drawn", String(nodes.length));
    return cy;
  }
  if (data) {
    var full = document.getElementById("graph");
    if (full) {
      var all = data.nodes.map(function (_, n) { return n; });
      // room between nodes, so that a small vault's labels do not sit on each other
      var spread = { name: "cose", animate: false, nodeRepulsion: 800000, idealEdgeLength: 90, nodeOverlap: 40,
                     componentSpacing: 120, padding: 30 };
      draw(full, all, data.edges, all.length <= 400 ? spread : { name: "grid" });
      var legend = document.getElementById("graph-legend");
      (data.groups || []).forEach(function (group, g) {
        var span = document.createElement("span"), dot = document.createElement("i");
        dot.style.background = colour(g);
        span.appendChild(dot);
        span.appendChild(document.createTextNode(group.label + " (" + group.members.length + ")"));
        legend.appendChild(span);
      });
    }
    var near = document.getElementById("neighbourhood");
    var me = -1;
    data.nodes.forEach(function (n, k) { if (n[0] === here) me = k; });
    if (near && me >= 0) {
      var keep = {}; keep[me] = true;
      var mine = data.edges.filter(function (e) { return e[0] === me || e[1] === me; });
      mine.forEach(function (e) { keep[e[0]] = true; keep[e[1]] = true; });
      var ids = Object.keys(keep).map(Number);
      draw(near, ids, mine, { name: "concentric", animate: false,
        concentric: function (node) { return node.data("here") ? 2 : 1; }, levelWidth: function () { return 1; } });
    } else if (near) {
      near.parentNode.hidden = true;
    }
    var cluster = document.getElementById("cluster");
    var group = me >= 0 ? (data.groups || [])[data.nodes[me][3]] : null;
    if (cluster && group) {
      document.getElementById("cluster-name").textContent = group.label;
      group.members.filter(function (n) { return n !== me; }).slice(0, 12).forEach(function (n) {
        var li = document.createElement("li"), a = document.createElement("a");
        a.href = root + data.nodes[n][2];
        a.className = "internal";
        a.textContent = data.nodes[n][1];
        li.appendChild(a);
        cluster.appendChild(li);
      });
      document.getElementById("cluster-section").hidden = false;
    }
  }
})();
