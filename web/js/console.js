// trv-sim's operator's console (docs/console.md). Plain JavaScript on
// Leaflet (/lib/leaflet/): the map is the run's CRS in metres (a
// CRS.Simple whose origin is the grid's top-left corner), its layers the
// PNGs of /layers/ (one pixel per cell) laid over the grid's extent. The
// WebSocket /ws carries the control protocol (docs/sim-protocol.md) and
// the frames the server pushes: state, events, scan, route, reset.
'use strict';
(function () {
  const $ = id => document.getElementById(id);
  // window.trvConsole: what the page knows, for the headless test and for
  // a curious operator's devtools
  const C = window.trvConsole = {sent: [], replies: {}, errors: [], vehicles: {}, obstacles: {}, hello: null, state: null,
                                 scans: 0, frames: 0};
  const MAX_HITS = 3000;
  const COLOURS = ['#d62728', '#1f77b4', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2', '#17becf'];
  let ws = null, nextId = 1, map = null, tool = 'none';
  const pending = {};
  const groups = {};

  const ll = (x, y) => L.latLng(y, x);
  const fmt = (v, d) => (v === null || v === undefined || !isFinite(v)) ? '–' : Number(v).toFixed(d);

  // ---- the map ------------------------------------------------------------------
  function setupMap(ext, layers) {
    const crs = L.extend({}, L.CRS.Simple, {transformation: new L.Transformation(1, -ext[0], -1, ext[3])});
    map = L.map('map', {crs: crs, minZoom: -10, maxZoom: 5, zoomSnap: 0.25, preferCanvas: true,
                        attributionControl: false});
    map.createPane('cells').style.zIndex = 250;
    map.fitBounds([[ext[1], ext[0]], [ext[3], ext[2]]]);
    const base = {};
    layers.forEach((l, i) => {
      const e = l.extent;
      const img = L.imageOverlay('/layers/' + l.file, [[e[1], e[0]], [e[3], e[2]]],
                                 {pane: 'cells', className: 'layer-cells', alt: l.title});
      base[l.name] = img;
      if (i === 0) img.addTo(map);
    });
    ['routes', 'trails', 'vehicles', 'lidar', 'obstacles', 'marks'].forEach(n => { groups[n] = L.layerGroup().addTo(map); });
    L.control.layers(base, {'routes': groups.routes, 'trajectories': groups.trails, 'LiDAR hits': groups.lidar,
                            'obstacles': groups.obstacles, 'events': groups.marks}, {collapsed: false}).addTo(map);
    L.control.scale({imperial: false}).addTo(map);
    map.on('click', onMapClick);
    C.map = map;
    C.toContainer = (x, y) => { const p = map.latLngToContainerPoint(ll(x, y)); return [p.x, p.y]; };
  }

  function vehicle(id) {
    let v = C.vehicles[id];
    if (!v) {
      const colour = COLOURS[Object.keys(C.vehicles).length % COLOURS.length];
      v = C.vehicles[id] = {id: id, colour: colour, length: 3, width: 2, trail: [], state: null,
                            body: null, line: null, plan: null, current: null};
    }
    return v;
  }

  // the footprint: a length x width rectangle about the pose, nose at +x
  function footprint(v, s) {
    const c = Math.cos(s.heading), n = Math.sin(s.heading), hl = v.length / 2, hw = v.width / 2;
    return [[hl, hw], [hl, -hw], [-hl, -hw], [-hl, hw]].map(p => ll(s.x + c * p[0] - n * p[1], s.y + n * p[0] + c * p[1]));
  }

  // ---- pushed frames -------------------------------------------------------------
  function onHello(m) {
    C.hello = m;
    if (m.replay) return replay();
    const sel = $('goal-vehicle');
    sel.innerHTML = '';
    m.vehicles.forEach(h => {
      const v = vehicle(h.id);
      v.length = h.length_m || 3, v.width = h.width_m || 2;
      sel.add(new Option(h.id, h.id));
    });
  }

  function onState(m) {
    C.state = m, C.frames++;
    const rows = [];
    m.vehicles.forEach(s => {
      const v = vehicle(s.vehicle);
      v.state = s;
      const last = v.trail[v.trail.length - 1];
      if (!last || Math.hypot(last.lng - s.x, last.lat - s.y) > 0.5) {
        v.trail.push(ll(s.x, s.y));
        if (v.trail.length > 20000) v.trail.splice(0, v.trail.length - 20000);
        if (!v.line) v.line = L.polyline([], {color: '#111', weight: 2}).addTo(groups.trails);
        v.line.setLatLngs(v.trail);
      }
      const tip = s.vehicle + ': ' + fmt(s.v * 3.6, 1) + ' km/h (limit ' + fmt(s.speed_limit_ms * 3.6, 1) +
                  ', ' + s.binding_limit + ')';
      if (!v.body) v.body = L.polygon(footprint(v, s), {color: '#000', weight: 1, fillColor: v.colour, fillOpacity: 0.9})
                             .bindTooltip('').addTo(groups.vehicles);
      v.body.setLatLngs(footprint(v, s)).setTooltipContent(tip);
      rows.push('<tr><td style="color:' + v.colour + '">' + s.vehicle + '</td><td>' + s.phase + (s.end ? ' (' + s.end + ')' : '') +
                '</td><td>' + fmt(s.v * 3.6, 1) + '</td><td>' + fmt(s.speed_limit_ms * 3.6, 1) + '</td><td>' +
                s.binding_limit + '</td><td>' + fmt(s.distance_m, 0) + '</td></tr>');
    });
    document.querySelector('#vehicles tbody').innerHTML = rows.join('');
    $('status').className = '';
    $('status').textContent = 't = ' + fmt(m.t, 1) + ' s · ' + (m.pace > 0 ? '×' + m.pace : 'max') + ' · ' +
                              (m.over ? 'over' : m.paused ? 'paused' : 'running');
    $('pace').value = m.pace > 0 ? String(m.pace) : 'max';
  }

  function logEvent(e) {
    const name = e.event || e.type;
    const li = document.createElement('li');
    li.className = name;
    li.textContent = fmt(e.t, 2) + ' ' + (e.vehicle === null ? '–' : e.vehicle) + ' ' + name +
                     (e.details && Object.keys(e.details).length ? ' ' + JSON.stringify(e.details) : '');
    $('events').appendChild(li);
    li.scrollIntoView({block: 'nearest'});
    if (map && isFinite(e.x) && isFinite(e.y) && name !== 'start')
      L.circleMarker(ll(e.x, e.y), {radius: 5, color: name === 'collision' ? '#b00' : '#333', weight: 2, fill: false})
        .bindTooltip(li.textContent).addTo(groups.marks);
  }

  function onRoute(m) {
    const v = vehicle(m.vehicle), pts = m.path.map(p => ll(p[0], p[1]));
    const style = m.kind === 'plan' ? {color: '#1f4e9c', weight: 6, opacity: 0.55}
                                    : {color: '#7b2fa8', weight: 3, opacity: 0.9, dashArray: '8 6'};
    const key = m.kind === 'plan' ? 'plan' : 'current';
    if (!v[key]) v[key] = L.polyline([], style).addTo(groups.routes);
    v[key].setLatLngs(pts).bindTooltip(m.vehicle + ': ' + (m.kind === 'plan' ? 'first plan' : 'path followed now'));
  }

  function decodeF32(b64) {
    const bin = atob(b64), bytes = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    return new Float32Array(bytes.buffer);
  }

  // hits projected on the map: range x cos(elevation) along heading + azimuth
  // (the vehicle's pitch and roll left out: a plan view)
  function onScan(m) {
    C.scans++;
    const v = vehicle(m.vehicle), r = decodeF32(m.ranges_f32le), p = m.pose, pts = [];
    for (let a = 0; a < m.azimuths; a++)
      for (let l = 0; l < m.lines; l++) {
        const t = r[a * m.lines + l];
        if (!isFinite(t)) continue;
        const h = t * Math.cos(m.el0_rad + l * m.del_rad), psi = p.heading + m.az0_rad + a * m.daz_rad;
        pts.push(ll(p.x + h * Math.cos(psi), p.y + h * Math.sin(psi)));
      }
    if (!v.hits) v.hits = L.layerGroup().addTo(groups.lidar);
    v.hits.clearLayers();
    // at most MAX_HITS drawn (every k-th): a 3D LiDAR returns thousands a scan
    const k = Math.ceil(pts.length / MAX_HITS);
    for (let i = 0; i < pts.length; i += k)
      L.circleMarker(pts[i], {radius: 1.5, stroke: false, fillColor: '#ff00aa', fillOpacity: 0.9}).addTo(v.hits);
  }

  function onReset() {
    Object.values(C.vehicles).forEach(v => { v.trail = []; if (v.line) v.line.setLatLngs([]); });
    groups.marks.clearLayers();
    $('events').innerHTML = '';
  }

  // ---- requests -------------------------------------------------------------------
  function request(obj, then) {
    if (!ws || ws.readyState !== 1) return;
    obj.id = nextId++;
    if (then) pending[obj.id] = then;
    if (obj.type !== 'obstacles') C.sent.push(obj); // the periodic poll left out
    if (C.sent.length > 500) C.sent.splice(0, C.sent.length - 500);
    ws.send(JSON.stringify(obj));
  }

  function showError(m) {
    C.errors.push(m);
    const li = document.createElement('li');
    li.className = 'error';
    li.textContent = 'error ' + m.error + ': ' + m.message;
    $('events').appendChild(li);
    li.scrollIntoView({block: 'nearest'});
  }

  // the obstacles where they are now (the protocol's obstacles reply):
  // the scenario's (obstacle null) and the virtual ones, which a click removes
  function drawObstacles(list) {
    groups.obstacles.clearLayers();
    C.obstacles = {};
    list.filter(o => o.active).forEach(o => {
      const style = {color: '#99000d', weight: 2, fillColor: '#e41a1c', fillOpacity: 0.45, bubblingMouseEvents: false};
      const shape = o.shape === 'circle' ? L.circle(ll(o.x, o.y), Object.assign({radius: o.radius}, style))
                                         : L.polygon((o.xy || []).map(p => ll(p[0], p[1])), style);
      shape.addTo(groups.obstacles);
      if (o.obstacle === null) { shape.bindTooltip(o.name + ' (scenario)'); return; }
      C.obstacles[o.obstacle] = o;
      shape.bindTooltip(o.name + ' (click to remove)');
      shape.on('click', () => request({type: 'remove_obstacle', obstacle: o.obstacle}, pollObstacles));
    });
  }

  let obstaclesKnown = true;
  function pollObstacles() {
    if (obstaclesKnown)
      request({type: 'obstacles'}, m => {
        if (m.type === 'obstacles') drawObstacles(m.obstacles);
        else if (m.error === 'unknown_message') obstaclesKnown = false;
      });
  }

  function addObstacle(x, y) {
    const radius = Number($('radius').value), height = Number($('height').value);
    request({type: 'add_obstacle', shape: 'circle', x: x, y: y, radius: radius, height: height, vx: 0, vy: 0},
            pollObstacles);
  }

  function setGoal(x, y) {
    const id = $('goal-vehicle').value;
    request({type: 'plan', vehicle: id, to: [x, y], follow: true}, m => {
      if (m.type === 'error') return;
      L.marker(ll(x, y), {title: id + "'s goal"}).addTo(groups.marks);
    });
  }

  function onMapClick(e) {
    if (tool === 'obstacle') addObstacle(e.latlng.lng, e.latlng.lat);
    else if (tool === 'goal') setGoal(e.latlng.lng, e.latlng.lat);
  }

  function onMessage(ev) {
    const m = JSON.parse(ev.data);
    if (m.type === 'error') showError(m);
    if (m.id !== undefined && m.type !== 'obstacles') C.replies[m.id] = m;
    if (m.id !== undefined && pending[m.id]) { const f = pending[m.id]; delete pending[m.id]; f(m); }
    switch (m.type) {
      case 'hello': if (m.id === undefined) onHello(m); break;
      case 'state': onState(m); break;
      case 'events': m.events.forEach(logEvent); break;
      case 'route': onRoute(m); break;
      case 'scan': onScan(m); break;
      case 'reset': onReset(); break;
    }
  }

  function connect() {
    ws = new WebSocket((location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + '/ws');
    C.ws = ws;
    ws.onmessage = onMessage;
    ws.onopen = () => { if (!C.poll) C.poll = setInterval(() => { if (C.hello && !C.hello.replay) pollObstacles(); }, 1000); };
    ws.onclose = () => { $('status').className = 'error'; $('status').textContent += ' · disconnected'; };
  }

  // ---- a finished run (trv-sim --console --replay): its files under /sim/ ---------
  async function replay() {
    $('status').textContent = 'replay of a finished run';
    document.querySelectorAll('#side button, #side select, #side input').forEach(b => { b.disabled = true; });
    const metrics = await (await fetch('/sim/metrics.json')).json();
    for (const mv of metrics.vehicles) {
      const v = vehicle(mv.id), text = await (await fetch('/sim/trajectory_' + mv.id + '.csv')).text();
      const rows = text.trim().split('\n'), head = rows.shift().split(',');
      const ix = head.indexOf('x'), iy = head.indexOf('y');
      v.trail = rows.map(r => { const c = r.split(','); return ll(Number(c[ix]), Number(c[iy])); });
      v.line = L.polyline(v.trail, {color: v.colour, weight: 3}).bindTooltip(mv.id + ': ' + mv.end).addTo(groups.trails);
    }
    const ev = await fetch('/sim/events.jsonl');
    if (ev.ok) (await ev.text()).trim().split('\n').filter(Boolean).forEach(l => logEvent(JSON.parse(l)));
  }

  // ---- controls -------------------------------------------------------------------
  function controls() {
    $('pause').onclick = () => request({type: 'pause'});
    $('resume').onclick = () => request({type: 'resume'});
    $('pace').onchange = () => request({type: 'pace', factor: $('pace').value === 'max' ? 'max' : Number($('pace').value)});
    $('close').onclick = () => { if (confirm('End the run? trv-sim writes its outputs and exits.')) request({type: 'close'}); };
    document.querySelectorAll('input[name=tool]').forEach(r => {
      r.onchange = () => {
        tool = r.value;
        $('map').classList.remove('tool-obstacle', 'tool-goal');
        if (tool !== 'none') $('map').classList.add('tool-' + tool);
      };
    });
    document.querySelectorAll('#tabs button').forEach(b => { b.onclick = () => showTab(b.dataset.tab); });
  }

  function showTab(name) {
    document.querySelectorAll('#tabs button').forEach(b => b.classList.toggle('on', b.dataset.tab === name));
    document.querySelectorAll('.tab').forEach(t => t.classList.toggle('on', t.id === name));
    if (name === 'map' && map) map.invalidateSize();
    if (name === 'view3d' && !$('view3d').querySelector('iframe'))
      fetch('/web/view3d.html').then(r => {
        if (!r.ok) { $('view3d-missing').hidden = false; return; }
        const f = document.createElement('iframe');
        f.src = '/web/view3d.html' + (C.hello && C.hello.replay ? '' : '?live=1');
        $('view3d').appendChild(f);
      });
  }

  async function start() {
    controls();
    // trv-sim needs the class layer: there is always one layer, and its extent is the grid's
    const index = await (await fetch('/layers/index.json')).json();
    setupMap(index.layers[0].extent, index.layers);
    connect();
  }
  start();
})();
