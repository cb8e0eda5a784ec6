/* The run in 3D (docs/view3d.md): plain JavaScript over three.js r111
 * (Debian's libjs-three, classic scripts; THREE and THREE.OrbitControls).
 *
 * Data, by the console's URL layout (common to E's server and a static one):
 *   /run/web3d/index.json, tiles/K_X_Y.f32, NAME.png   trv-export --web3d
 *   /run/route.csv                                   the planned routes
 *   /sim/metrics.json, /sim/trajectory_ID.csv        a finished run (replay)
 *   /sim/vehicles.json, /sim/lidar_ID.ndjson         its vehicles' dimensions and
 *         recorded LiDAR scans (optional: older runs have neither; trv-sim's
 *         lidar_record_s)
 *   /ws   with ?live=1: the control protocol's JSON; "state" messages move
 *         the vehicles ({"type":"state","t":..,"vehicles":[{"vehicle"|"id":..,
 *         "x","y","z","heading","pitch","roll" (radians),"v"|"speed"}]}), "scan"
 *         replies give the LiDAR points, "route" the plans, "reset" clears the
 *         tracks, a "hello" with "replay": true turns to the replay of /sim/
 *         (docs/sim-protocol.md, "The console's WebSocket").
 * Query: ?live=1, ?run=/run, ?sim=/sim, ?layer=NAME, ?camera=orbit|follow|free,
 * ?t=SECONDS (the replay's first time).
 *
 * Scene frame: X east, Y up, Z south, metres from the DEM's centre (x0, y0):
 * X = x - x0, Y = zscale z, Z = -(y - y0). A pose (heading counter-clockwise
 * from east, pitch nose up, roll) is the Euler rotation YZX (heading, pitch, roll).
 *
 * window.view3dStatus reports for tests: ready (a frame drawn with tiles
 * and the layer's texture), frames, tilesLoaded, tilesVisible, texturesLoaded, vehicles, routes, trajectories, lidarPoints, layer, mode,
 * camera, t, error, lidarScans (the recorded scans loaded), vehicleSizes (per id, the drawn model's
 * length_m, width_m, height_m, wheelbase_m, track_m, wheel_radius_m, read back from its meshes). */
'use strict';

const Q = new URLSearchParams(location.search);
const RUN = Q.get('run') || '/run', SIM = Q.get('sim') || '/sim', LIVE = Q.get('live') === '1';
const S = window.view3dStatus = {ready: false, frames: 0, tilesLoaded: 0, tilesVisible: 0, vehicles: 0, routes: 0,
    trajectories: 0, texturesLoaded: 0, lidarPoints: 0, lidarScans: 0, vehicleSizes: {}, layer: null, mode: LIVE ? 'live' : 'replay', camera: 'orbit', t: 0, error: null};
const V = {index: null, x0: 0, y0: 0, zscale: 1, materials: {}, material: null, tiles: new Map(), root: null,
    vehicles: new Map(), routes: [], liveRoutes: new Map(), tmin: 0, tmax: 0, playing: false, pace: 10, follow: null};
const $ = id => document.getElementById(id);

function fail(what, e) {
    S.error = what + ': ' + (e && e.message ? e.message : e);
    $('status').textContent = S.error;
    $('status').className = 'error';
}

async function fetchOk(url, kind) {
    const r = await fetch(url);
    if (!r.ok)
        throw new Error(url + ': HTTP ' + r.status);
    return kind === 'json' ? r.json() : kind === 'buf' ? r.arrayBuffer() : r.text();
}

/* ---- scene ------------------------------------------------------------- */

function initScene() {
    const el = $('view');
    V.renderer = new THREE.WebGLRenderer({antialias: true, preserveDrawingBuffer: true});
    V.renderer.setPixelRatio(window.devicePixelRatio || 1);
    V.renderer.setSize(el.clientWidth, el.clientHeight);
    el.appendChild(V.renderer.domElement);
    V.scene = new THREE.Scene();
    V.scene.background = new THREE.Color(0xdfe8ef);
    V.scene.add(new THREE.HemisphereLight(0xffffff, 0x667755, 0.45));
    const sun = new THREE.DirectionalLight(0xffffff, 0.85);
    sun.position.set(-1, 0.8, -1); /* from the north-west, as the maps' hillshade */
    V.scene.add(sun);
    V.camera = new THREE.PerspectiveCamera(50, el.clientWidth / el.clientHeight, 1, 1e6);
    V.controls = new THREE.OrbitControls(V.camera, V.renderer.domElement);
    V.controls.maxPolarAngle = Math.PI * 0.495;
    V.root = new THREE.Group();
    V.scene.add(V.root);
    window.addEventListener('resize', () => {
        V.camera.aspect = el.clientWidth / el.clientHeight;
        V.camera.updateProjectionMatrix();
        V.renderer.setSize(el.clientWidth, el.clientHeight);
    });
}

/* Map coordinates (x, y, z) to the scene. */
function toScene(x, y, z, out) {
    return (out || new THREE.Vector3()).set(x - V.x0, z * V.zscale, -(y - V.y0));
}

/* ---- terrain: tiles by level of detail around the camera --------------- */

function texturesLoad(index) {
    const loader = new THREE.TextureLoader(), sel = $('layer');
    for (const t of index.textures) {
        const tex = loader.load(RUN + '/web3d/' + t.file, () => { S.texturesLoaded++; },
            undefined, e => fail('texture ' + t.file, 'cannot load'));
        tex.anisotropy = 4;
        V.materials[t.name] = new THREE.MeshLambertMaterial({map: tex, side: THREE.DoubleSide});
        const range = t.min !== undefined ? ' (' + +t.min.toPrecision(3) + '–' + +t.max.toPrecision(3) + ')' : '';
        sel.add(new Option(t.name + range, t.name));
    }
    const want = Q.get('layer');
    setLayer(V.materials[want] ? want : index.textures.some(t => t.name === 'speed') ? 'speed'
        : index.textures[0].name);
}

function setLayer(name) {
    V.material = V.materials[name];
    S.layer = name;
    $('layer').value = name;
    for (const t of V.tiles.values())
        if (t.mesh)
            t.mesh.material = V.material;
}

/* The tile's extent in cells: columns c0..c1, rows r0..r1 (vertex cells). */
function tileCells(k, tx, ty) {
    const T = V.index.tile_intervals, s = 1 << k;
    return {c0: tx * T * s, c1: (tx + 1) * T * s, r0: ty * T * s, r1: (ty + 1) * T * s, s: s};
}

/* A tile's geometry: V x V vertices at the cells' centres, the triangles
 * whose corners all hold data, a skirt hanging from the edges so that
 * neighbours of two levels show no crack. */
function tileGeometry(k, tx, ty, h) {
    const ix = V.index, T = ix.tile_intervals, NV = T + 1, gt = ix.geotransform, e = tileCells(k, tx, ty);
    const skirt = 4 * (e.s * Math.abs(gt[1])) + 2, pos = [], uv = [], idx = [];
    const ok = h.map(v => v !== ix.nodata);
    const put = (i, j, drop) => {
        const c = e.c0 + i * e.s, r = e.r0 + j * e.s, z = h[j * NV + i];
        pos.push(gt[0] + (c + 0.5) * gt[1] - V.x0, (z - drop) * V.zscale, -(gt[3] + (r + 0.5) * gt[5] - V.y0));
        uv.push((c + 0.5) / ix.nx, 1 - (r + 0.5) / ix.ny);
    };
    for (let j = 0; j < NV; j++)
        for (let i = 0; i < NV; i++)
            put(i, j, 0);
    for (let j = 0; j < T; j++)
        for (let i = 0; i < T; i++) {
            const a = j * NV + i, b = a + 1, c = a + NV, d = c + 1;
            if (ok[a] && ok[b] && ok[c] && ok[d])
                idx.push(a, c, b, b, c, d);
        }
    /* the skirts: north, south, west, east edge, each hanging from its vertices */
    for (const [i0, along, j0] of [[0, 'i', 0], [0, 'i', T], [0, 'j', 0], [T, 'j', 0]]) {
        const base = pos.length / 3;
        for (let n = 0; n < NV; n++) {
            const i = along === 'i' ? n : i0, j = along === 'j' ? n : j0;
            put(i, j, ok[j * NV + i] ? skirt : 0);
        }
        for (let n = 0; n < T; n++) {
            const p = along === 'i' ? j0 * NV + n : n * NV + i0, q = along === 'i' ? p + 1 : p + NV;
            if (ok[p] && ok[q])
                idx.push(p, q, base + n, q, base + n + 1, base + n);
        }
    }
    const g = new THREE.BufferGeometry();
    g.setAttribute('position', new THREE.Float32BufferAttribute(pos, 3));
    g.setAttribute('uv', new THREE.Float32BufferAttribute(uv, 2));
    g.setIndex(idx);
    g.computeVertexNormals();
    g.computeBoundingSphere();
    return g;
}

/* The tile's record, its mesh loaded once asked for. */
function tile(k, tx, ty) {
    const key = k + '_' + tx + '_' + ty;
    let t = V.tiles.get(key);
    if (!t) {
        t = {k: k, tx: tx, ty: ty, key: key, mesh: null, loading: false};
        V.tiles.set(key, t);
    }
    if (!t.mesh && !t.loading) {
        t.loading = true;
        const path = V.index.tile_path.replace('{level}', k).replace('{x}', tx).replace('{y}', ty);
        fetchOk(RUN + '/web3d/' + path, 'buf').then(buf => {
            const dv = new DataView(buf), n = buf.byteLength / 4, h = new Float32Array(n);
            for (let i = 0; i < n; i++)
                h[i] = dv.getFloat32(4 * i, true);
            t.h = h;
            t.mesh = new THREE.Mesh(tileGeometry(k, tx, ty, h), V.material);
            t.mesh.visible = false;
            V.root.add(t.mesh);
            S.tilesLoaded++;
        }).catch(e => fail('tile ' + key, e));
    }
    return t;
}

/* The tiles to draw: from the coarsest level, a tile splits into its
 * children while the camera is closer than 1.5 of its width and all its
 * children have loaded (until then the parent stands in). */
function selectTiles(k, tx, ty, out) {
    const ix = V.index, L = ix.levels[k], t = tile(k, tx, ty);
    if (tx >= L.ntx || ty >= L.nty)
        return;
    const e = tileCells(k, tx, ty), gt = ix.geotransform, w = (e.c1 - e.c0) * Math.abs(gt[1]);
    const cx = gt[0] + (Math.min(e.c1, ix.nx) + e.c0) / 2 * gt[1] - V.x0;
    const cz = -(gt[3] + (Math.min(e.r1, ix.ny) + e.r0) / 2 * gt[5] - V.y0);
    const cam = V.camera.position, dy = Math.max(0, cam.y - ix.height_max * V.zscale);
    const d = Math.max(0, Math.hypot(cam.x - cx, cam.z - cz) - w / 2);
    if (k > 0 && Math.hypot(d, dy) < 1.5 * w) {
        const kids = [];
        for (const [i, j] of [[0, 0], [1, 0], [0, 1], [1, 1]])
            if (2 * tx + i < ix.levels[k - 1].ntx && 2 * ty + j < ix.levels[k - 1].nty)
                kids.push(tile(k - 1, 2 * tx + i, 2 * ty + j));
        if (kids.every(c => c.mesh)) {
            for (const c of kids)
                selectTiles(c.k, c.tx, c.ty, out);
            return;
        }
    }
    if (t.mesh)
        out.push(t);
}

function updateTiles() {
    const top = V.index.levels.length - 1, shown = [];
    selectTiles(top, 0, 0, shown);
    const on = new Set(shown.map(t => t.key));
    for (const t of V.tiles.values())
        if (t.mesh)
            t.mesh.visible = on.has(t.key);
    S.tilesVisible = shown.length;
}

/* The terrain's height at map (x, y): the nearest vertex of the finest
 * loaded tile holding it; the lowest height before any has loaded. */
function heightAt(x, y) {
    const ix = V.index, gt = ix.geotransform, T = ix.tile_intervals;
    const c = (x - gt[0]) / gt[1] - 0.5, r = (y - gt[3]) / gt[5] - 0.5;
    for (let k = 0; k < ix.levels.length; k++) {
        const s = 1 << k, i = Math.round(c / s), j = Math.round(r / s);
        const t = V.tiles.get(k + '_' + Math.floor(i / T) + '_' + Math.floor(j / T));
        if (i >= 0 && j >= 0 && t && t.h) {
            const z = t.h[(j - Math.floor(j / T) * T) * (T + 1) + (i - Math.floor(i / T) * T)];
            if (z !== ix.nodata)
                return z;
        }
    }
    return ix.height_min;
}

/* ---- routes and trajectories ------------------------------------------ */

/* the maps' route colours (src/render/palette.c); grid-X as X */
const ROUTE_RGB = {mmcr: 0xd01c8b, mdr: 0x2166ac, msr: 0xff7f00, time: 0x17becf};

function csvRows(text) {
    const lines = text.trim().split('\n'), head = lines[0].split(',');
    return lines.slice(1).map(l => {
        const v = l.split(','), o = {};
        head.forEach((h, i) => { o[h] = v[i]; });
        return o;
    });
}

/* A polyline lifted lift metres above the given heights. */
function addLine(pts, rgb, lift, name) {
    const pos = [];
    for (const p of pts) {
        const v = toScene(p[0], p[1], p[2]);
        pos.push(v.x, v.y + lift, v.z);
    }
    const g = new THREE.BufferGeometry();
    g.setAttribute('position', new THREE.Float32BufferAttribute(pos, 3));
    const line = new THREE.Line(g, new THREE.LineBasicMaterial({color: rgb}));
    line.name = name;
    line.userData.pts = pts;
    line.userData.lift = lift;
    V.scene.add(line);
    return line;
}

async function loadRoutes() {
    let text;
    try {
        text = await fetchOk(RUN + '/route.csv', 'text');
    } catch (e) {
        return; /* a run without a route */
    }
    const by = new Map();
    for (const r of csvRows(text)) {
        if (!by.has(r.route))
            by.set(r.route, []);
        by.get(r.route).push([+r.x, +r.y, r.z !== undefined ? +r.z : heightAt(+r.x, +r.y)]);
    }
    for (const [name, pts] of by)
        V.routes.push(addLine(pts, ROUTE_RGB[name.replace(/^grid-/, '')] || 0x6a3d9a, 1.5, 'route ' + name));
    S.routes = by.size;
}

/* ---- vehicles ------------------------------------------------------------ */

const VEHICLE_RGB = [0xffd21f, 0x17becf, 0xe377c2, 0xbcbd22, 0x8c564b, 0x7f7f7f];

/* A vehicle: without its dimensions (older runs), a body 4 x 2 x 1 m with
 * a cab (2.25 m high in all) on four wheels of radius 0.45 m; with them (vehicles.json: length_m,
 * width_m, height_m, wheelbase_m, track_m, wheel_radius_m), a body
 * length x width from the wheels' axis up to 60 % of the way to the
 * height, a cab (35 % of the length, 90 % of the width, centred 20 % of
 * the length ahead) on it up to the height, the wheels wheelbase apart
 * along and track apart across (centre to centre). The group's origin on
 * the ground under the body's centre, X forward. */
function vehicleModel(rgb, d) {
    const g = new THREE.Group(), r = d ? d.wheel_radius_m : 0.45;
    const L = d ? d.length_m : 4, W = d ? d.width_m : 2, top = d ? Math.max(d.height_m, r + 0.1) : 2.25;
    const bodyTop = d ? r + 0.6 * (top - r) : 1.55;
    const body = new THREE.Mesh(new THREE.BoxBufferGeometry(L, bodyTop - r + (d ? 0 : -0.1), W),
        new THREE.MeshLambertMaterial({color: rgb}));
    body.position.y = d ? (r + bodyTop) / 2 : r + 0.6;
    g.add(body);
    const cl = d ? 0.35 * L : 1.4, cw = d ? 0.9 * W : 1.8, ch = top - bodyTop;
    const cab = new THREE.Mesh(new THREE.BoxBufferGeometry(cl, ch, cw), new THREE.MeshLambertMaterial({color: 0x333333}));
    cab.position.set(d ? 0.2 * L : 0.8, top - ch / 2, 0);
    g.add(cab);
    const hx = d ? d.wheelbase_m / 2 : 1.4, hz = d ? d.track_m / 2 : 1.1;
    const wheelGeo = new THREE.CylinderBufferGeometry(r, r, Math.min(0.35, 0.3 * W), 16);
    const wheelMat = new THREE.MeshLambertMaterial({color: 0x111111});
    g.userData.wheels = [];
    for (const [x, z] of [[hx, hz], [hx, -hz], [-hx, hz], [-hx, -hz]]) {
        const w = new THREE.Mesh(wheelGeo, wheelMat);
        w.rotation.x = Math.PI / 2;
        w.position.set(x, r, z);
        g.add(w);
        g.userData.wheels.push(w);
    }
    g.userData.body = body;
    g.userData.cab = cab;
    g.userData.radius = r;
    g.rotation.order = 'YZX';
    return g;
}

/* The model's dimensions read back from its meshes (for tests): the body's
 * length and width, the cab's top, the wheels' spacing and radius. */
function modelSize(g) {
    const b = g.userData.body.geometry.parameters, c = g.userData.cab, w = g.userData.wheels.map(m => m.position);
    return {length_m: b.width, width_m: b.depth, height_m: c.position.y + c.geometry.parameters.height / 2,
        wheelbase_m: w[0].x - w[2].x, track_m: w[0].z - w[1].z,
        wheel_radius_m: g.userData.wheels[0].geometry.parameters.radiusTop};
}

/* The vehicle id's record (dims: its vehicles.json entry, or none): model,
 * trail (executed route), samples, recorded LiDAR scans. */
function vehicle(id, dims) {
    let v = V.vehicles.get(id);
    if (!v) {
        const rgb = VEHICLE_RGB[V.vehicles.size % VEHICLE_RGB.length];
        v = {id: id, model: vehicleModel(rgb, dims), rows: [], trail: null, rgb: rgb, dist: 0, last: null, scans: [],
            scan: -1};
        S.vehicleSizes[id] = modelSize(v.model);
        V.scene.add(v.model);
        V.vehicles.set(id, v);
        $('vehicle').add(new Option(id, id));
        if (!V.follow)
            V.follow = id;
        S.vehicles = V.vehicles.size;
    }
    return v;
}

/* Put v at pose p {x, y, z, heading, pitch, roll (radians), speed}; the
 * wheels turn by the distance driven since the last pose. */
function setPose(v, p) {
    toScene(p.x, p.y, p.z, v.model.position);
    v.model.rotation.set(p.roll, p.heading, p.pitch);
    if (v.last)
        v.dist += Math.hypot(p.x - v.last.x, p.y - v.last.y);
    for (const w of v.model.userData.wheels)
        w.rotation.y = -v.dist / v.model.userData.radius;
    v.last = p;
    v.pose = p;
}

/* Far from the camera a vehicle is drawn larger (its size times the
 * distance over 150 m), so that it stays in sight. */
function scaleVehicles() {
    for (const v of V.vehicles.values())
        v.model.scale.setScalar(Math.max(1, v.model.position.distanceTo(V.camera.position) / 150));
}

/* ---- replay: the trajectories of a finished run ---------------------------- */

async function loadReplay() {
    let metrics;
    try {
        metrics = await fetchOk(SIM + '/metrics.json', 'json');
    } catch (e) {
        return; /* no simulation */
    }
    const d2r = Math.PI / 180, info = new Map();
    try {
        for (const e of (await fetchOk(SIM + '/vehicles.json', 'json')).vehicles || [])
            info.set(e.id, e);
    } catch (e) {
        /* an older run: the default box, no LiDAR */
    }
    for (const m of metrics.vehicles || []) {
        const text = await fetchOk(SIM + '/trajectory_' + m.id + '.csv', 'text');
        const v = vehicle(m.id, info.get(m.id));
        if (info.has(m.id) && info.get(m.id).lidar)
            v.scans = await loadScans(info.get(m.id).lidar);
        v.rows = csvRows(text).map(r => ({t: +r.t, x: +r.x, y: +r.y, z: +r.z, heading: r.heading_deg * d2r,
            pitch: r.pitch_deg * d2r, roll: r.roll_deg * d2r, speed: +r.speed_ms}));
        v.trail = addLine(v.rows.map(r => [r.x, r.y, r.z]), v.rgb, 0.8, 'trajectory ' + m.id);
        V.tmax = Math.max(V.tmax, v.rows.length ? v.rows[v.rows.length - 1].t : 0);
        S.trajectories++;
    }
    $('time').max = V.tmax;
    seek(Math.min(V.tmax, Math.max(0, +Q.get('t') || 0)));
}

/* A LiDAR record (lidar_ID.ndjson: one scan a line, {t, x, y, z, n, xyz:
 * [dx, dy, dz, ...] from (x, y, z)}), in time order. */
async function loadScans(file) {
    const scans = [];
    for (const line of (await fetchOk(SIM + '/' + file, 'text')).split('\n'))
        if (line.trim())
            scans.push(JSON.parse(line));
    S.lidarScans += scans.length;
    return scans;
}

/* The index of the last of scans at or before t; -1 before the first. */
function scanAt(scans, t) {
    let lo = 0, hi = scans.length;
    while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (scans[mid].t <= t + 1e-9) lo = mid + 1; else hi = mid;
    }
    return lo - 1;
}

/* Each vehicle's recorded scan at t as magenta points (rebuilt when another
 * scan is due, or all with force: a new height scale). */
function replayScans(t, force) {
    let total = 0;
    for (const v of V.vehicles.values()) {
        if (!v.scans.length)
            continue;
        const i = scanAt(v.scans, t);
        if (i !== v.scan || force) {
            if (v.lidar)
                V.scene.remove(v.lidar);
            v.lidar = null;
            v.scan = i;
            if (i >= 0) {
                const s = v.scans[i], pos = [], w = new THREE.Vector3();
                for (let j = 0; j < s.n; j++) {
                    toScene(s.x + s.xyz[3 * j], s.y + s.xyz[3 * j + 1], s.z + s.xyz[3 * j + 2], w);
                    pos.push(w.x, w.y, w.z);
                }
                const g = new THREE.BufferGeometry();
                g.setAttribute('position', new THREE.Float32BufferAttribute(pos, 3));
                v.lidar = new THREE.Points(g, new THREE.PointsMaterial({color: 0xff00ff, size: 3, sizeAttenuation: false}));
                V.scene.add(v.lidar);
            }
        }
        total += v.scan >= 0 ? v.scans[v.scan].n : 0;
    }
    if (!LIVE)
        S.lidarPoints = total;
}

/* The pose at t, interpolated between the rows around it. */
function poseAt(rows, t) {
    if (!rows.length)
        return null;
    let lo = 0, hi = rows.length - 1;
    if (t <= rows[0].t)
        return rows[0];
    if (t >= rows[hi].t)
        return rows[hi];
    while (hi - lo > 1) {
        const mid = (lo + hi) >> 1;
        if (rows[mid].t <= t) lo = mid; else hi = mid;
    }
    const a = rows[lo], b = rows[hi], f = (t - a.t) / (b.t - a.t), o = {t: t};
    const angle = (p, q) => p + f * Math.atan2(Math.sin(q - p), Math.cos(q - p));
    for (const k of ['x', 'y', 'z', 'pitch', 'roll', 'speed'])
        o[k] = a[k] + f * (b[k] - a[k]);
    o.heading = angle(a.heading, b.heading);
    return o;
}

function seek(t) {
    S.t = V.t = t;
    for (const v of V.vehicles.values()) {
        const p = poseAt(v.rows, t);
        if (p)
            setPose(v, p);
    }
    replayScans(t);
    $('time').value = t;
}

/* ---- live: the run over the console's WebSocket ------------------------------ */

function connectLive() {
    $('replay').style.display = 'none';
    const ws = new WebSocket((location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + '/ws');
    V.ws = ws;
    ws.onmessage = ev => {
        let m;
        try { m = JSON.parse(ev.data); } catch (e) { return; }
        if (m.type === 'hello' && m.replay)
            toReplay(ws);
        else if (m.type === 'hello' && Array.isArray(m.vehicles))
            liveHello(m);
        else if (m.type === 'state' && Array.isArray(m.vehicles))
            liveState(m);
        else if (m.type === 'scan' && m.ranges_f32le)
            liveScan(m);
        else if (m.type === 'route' && Array.isArray(m.path))
            liveRoute(m);
        else if (m.type === 'reset')
            liveReset();
    };
    ws.onerror = () => fail('live', 'the WebSocket /ws failed');
    /* ask for states when the server has pushed none for a second; a scan of the followed vehicle */
    setInterval(() => {
        if (ws.readyState !== 1)
            return;
        if (performance.now() - (V.lastState || 0) > 1000)
            ws.send(JSON.stringify({type: 'state'}));
        if (V.follow)
            ws.send(JSON.stringify({type: 'scan', vehicle: V.follow}));
    }, 500);
}

/* The run's hello: each vehicle's dimensions (the protocol's, with
 * height_m), for the models made at its first state. */
function liveHello(m) {
    V.dims = new Map();
    for (const v of m.vehicles)
        if (['length_m', 'width_m', 'height_m', 'wheelbase_m', 'track_m', 'wheel_radius_m'].every(k => v[k] > 0))
            V.dims.set(v.id, v);
}

/* The console serves a finished run (trv-sim --console --replay): replay /sim/. */
function toReplay(ws) {
    ws.close();
    V.ws = null;
    S.mode = 'replay';
    $('replay').style.display = '';
    loadReplay().then(initialView).catch(e => fail('replay', e));
}

/* A vehicle's plan ("plan") or the path it follows now ("current"), on the terrain. */
function liveRoute(m) {
    const key = m.vehicle + ' ' + m.kind, old = V.liveRoutes.get(key);
    if (old)
        V.scene.remove(old);
    const pts = m.path.map(p => [p[0], p[1], heightAt(p[0], p[1])]);
    V.liveRoutes.set(key, addLine(pts, m.kind === 'plan' ? 0x1f78b4 : 0x88419d, 1.5, 'route ' + key));
    S.routes = V.routes.length + V.liveRoutes.size;
}

function liveReset() {
    for (const v of V.vehicles.values()) {
        v.rows = [];
        if (v.trail)
            V.scene.remove(v.trail);
        v.trail = null;
    }
}

function liveState(m) {
    V.lastState = performance.now();
    S.t = V.t = m.t;
    for (const s of m.vehicles) {
        const v = vehicle(s.vehicle || s.id, V.dims && V.dims.get(s.vehicle || s.id));
        const p = {t: m.t, x: s.x, y: s.y, z: s.z, heading: s.heading, pitch: s.pitch || 0, roll: s.roll || 0,
            speed: s.v !== undefined ? s.v : s.speed};
        setPose(v, p);
        v.rows.push(p);
        if (v.trail)
            V.scene.remove(v.trail);
        v.trail = addLine(v.rows.map(r => [r.x, r.y, r.z]), v.rgb, 0.8, 'trajectory ' + v.id);
    }
}

/* The scan's hits (docs/sim-protocol.md "scan"): ray a * lines + l from the
 * mount along R (cos el cos az, cos el sin az, sin el), R = Rz(heading)
 * Ry(-pitch) Rx(roll). */
function liveScan(m) {
    const bin = atob(m.ranges_f32le), dv = new DataView(new ArrayBuffer(bin.length)), p = m.pose, pos = [];
    for (let i = 0; i < bin.length; i++)
        dv.setUint8(i, bin.charCodeAt(i));
    const R = new THREE.Matrix4().makeRotationZ(p.heading)
        .multiply(new THREE.Matrix4().makeRotationY(-p.pitch)).multiply(new THREE.Matrix4().makeRotationX(p.roll));
    const mount = new THREE.Vector3(0, 0, m.mount_h_m).applyMatrix4(R), dir = new THREE.Vector3();
    for (let a = 0; a < m.azimuths; a++)
        for (let l = 0; l < m.lines; l++) {
            const t = dv.getFloat32(4 * (a * m.lines + l), true);
            if (!isFinite(t))
                continue;
            const az = m.az0_rad + a * m.daz_rad, el = m.el0_rad + l * m.del_rad;
            dir.set(Math.cos(el) * Math.cos(az), Math.cos(el) * Math.sin(az), Math.sin(el)).applyMatrix4(R);
            const w = toScene(p.x + mount.x + t * dir.x, p.y + mount.y + t * dir.y, p.z + mount.z + t * dir.z);
            pos.push(w.x, w.y, w.z);
        }
    if (V.lidar)
        V.scene.remove(V.lidar);
    const g = new THREE.BufferGeometry();
    g.setAttribute('position', new THREE.Float32BufferAttribute(pos, 3));
    V.lidar = new THREE.Points(g, new THREE.PointsMaterial({color: 0xff00ff, size: 3, sizeAttenuation: false}));
    V.scene.add(V.lidar);
    S.lidarPoints = pos.length / 3;
}

/* ---- cameras: orbit (around the vehicle), follow (behind it), free -------- */

const KEYS = {};
window.addEventListener('keydown', e => { KEYS[e.key.toLowerCase()] = true; });
window.addEventListener('keyup', e => { KEYS[e.key.toLowerCase()] = false; });

function setCamera(mode) {
    S.camera = mode;
    $('camera').value = mode;
    V.controls.enabled = mode !== 'follow';
}

/* Free: W/S forward and back, A/D sideways, Q/E down and up, at a pace
 * that grows with the height above the terrain's top. */
function freeMove(dt) {
    const fwd = new THREE.Vector3();
    V.camera.getWorldDirection(fwd);
    fwd.y = 0;
    fwd.normalize();
    const side = new THREE.Vector3(-fwd.z, 0, fwd.x), move = new THREE.Vector3();
    const pace = dt * Math.max(20, V.camera.position.y - V.index.height_max * V.zscale);
    if (KEYS.w) move.add(fwd);
    if (KEYS.s) move.sub(fwd);
    if (KEYS.d) move.add(side);
    if (KEYS.a) move.sub(side);
    if (KEYS.e) move.y += 1;
    if (KEYS.q) move.y -= 1;
    move.multiplyScalar(pace);
    V.camera.position.add(move);
    V.controls.target.add(move);
}

function updateCamera(dt) {
    const v = V.vehicles.get(V.follow);
    if (S.camera === 'free') {
        freeMove(dt);
    } else if (v && v.pose) {
        const at = v.model.position;
        if (S.camera === 'orbit') {
            V.camera.position.add(at.clone().sub(V.controls.target));
            V.controls.target.copy(at);
        } else {
            const back = new THREE.Vector3(-Math.cos(v.pose.heading), 0, Math.sin(v.pose.heading));
            V.camera.position.copy(at).addScaledVector(back, 25).add(new THREE.Vector3(0, 10, 0));
            V.controls.target.copy(at).add(new THREE.Vector3(0, 2, 0));
            V.camera.lookAt(V.controls.target);
        }
    }
    if (V.controls.enabled)
        V.controls.update();
}

/* The first view: from the south-east, above the followed vehicle (at a
 * third of the terrain's width, 150 to 1200 m) or the terrain's centre. */
function initialView() {
    const ix = V.index, w = Math.max(ix.nx, ix.ny) * Math.abs(ix.geotransform[1]);
    const v = V.vehicles.get(V.follow);
    const at = v && v.pose ? v.model.position.clone() : new THREE.Vector3(0, (ix.height_min + ix.height_max) / 2 * V.zscale, 0);
    const d = v ? Math.min(Math.max(150, w / 3), 1200) : Math.max(150, w / 2);
    V.controls.target.copy(at);
    V.camera.position.set(at.x + 0.35 * d, at.y + 0.6 * d, at.z + 0.75 * d);
    V.camera.far = 6 * w + 1e4;
    V.camera.near = Math.max(0.5, d / 2000);
    V.camera.updateProjectionMatrix();
    V.controls.update();
}

/* ---- the loop and the controls ------------------------------------------------ */

function frame(now) {
    const dt = Math.min(0.1, (now - (V.then || now)) / 1000);
    V.then = now;
    if (V.playing && !LIVE) {
        let t = V.t + dt * V.pace;
        if (t >= V.tmax) {
            t = V.tmax;
            togglePlay(false);
        }
        seek(t);
    }
    updateCamera(dt);
    scaleVehicles();
    updateTiles();
    V.renderer.render(V.scene, V.camera);
    S.frames++;
    if (!S.ready && !V.pending && S.tilesVisible > 0 && V.material.map.image && V.material.map.image.complete)
        S.ready = true;
    $('clock').textContent = 't = ' + (V.t || 0).toFixed(1) + ' s';
    $('status').textContent = S.error || ('tiles ' + S.tilesVisible + ' shown, ' + S.tilesLoaded + ' loaded · '
        + S.vehicles + ' vehicle(s) · ' + S.routes + ' route(s) · ' + (LIVE ? 'live' : 'replay')
        + (S.lidarPoints ? ' · ' + S.lidarPoints + ' LiDAR points' : ''));
    requestAnimationFrame(frame);
}

function togglePlay(on) {
    V.playing = on === undefined ? !V.playing : on;
    if (V.playing && V.t >= V.tmax)
        seek(0);
    $('play').textContent = V.playing ? '❚❚' : '▶';
}

/* Rebuild everything drawn in scene heights after a new height scale. */
function setZscale(z) {
    V.zscale = z;
    for (const t of V.tiles.values())
        if (t.mesh) {
            V.root.remove(t.mesh);
            t.mesh.geometry.dispose();
        }
    V.tiles.clear();
    S.tilesLoaded = 0;
    for (const l of V.scene.children.filter(c => c.userData.pts)) {
        const fresh = addLine(l.userData.pts, l.material.color.getHex(), l.userData.lift, l.name);
        V.scene.remove(l);
        V.routes = V.routes.map(r => (r === l ? fresh : r));
        for (const [k, r] of V.liveRoutes)
            if (r === l)
                V.liveRoutes.set(k, fresh);
        for (const v of V.vehicles.values())
            if (v.trail === l)
                v.trail = fresh;
    }
    for (const v of V.vehicles.values())
        if (v.pose)
            setPose(v, v.pose);
    replayScans(V.t || 0, true);
}

function bindControls() {
    $('layer').onchange = e => setLayer(e.target.value);
    $('camera').onchange = e => setCamera(e.target.value);
    $('vehicle').onchange = e => { V.follow = e.target.value; };
    $('zscale').onchange = e => setZscale(+e.target.value);
    $('play').onclick = () => togglePlay();
    $('time').oninput = e => seek(+e.target.value);
    $('pace').onchange = e => { V.pace = +e.target.value; };
    V.pace = +$('pace').value;
}

async function main() {
    try {
        initScene();
        bindControls();
        V.pending = true;
        V.index = await fetchOk(RUN + '/web3d/index.json', 'json');
        const ix = V.index, gt = ix.geotransform;
        V.x0 = gt[0] + ix.nx / 2 * gt[1];
        V.y0 = gt[3] + ix.ny / 2 * gt[5];
        texturesLoad(ix);
        await loadRoutes();
        if (LIVE)
            connectLive();
        else
            await loadReplay();
        setCamera(['orbit', 'follow', 'free'].includes(Q.get('camera')) ? Q.get('camera') : 'orbit');
        initialView();
        V.pending = false;
        requestAnimationFrame(frame);
    } catch (e) {
        fail('cannot show the run', e);
    }
}

main();
