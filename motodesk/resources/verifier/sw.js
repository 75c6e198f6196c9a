// Service worker of the badge verifier: the page, its script, style and keys stay usable offline
// (a passenger may scan a badge where there is no signal). Network first, so a new version or a new
// key published by the secretariat is used as soon as the phone is online; the cache answers only
// when the network does not. The status list is not cached here: the page keeps the last good one.
const CACHE = "motodesk-verificador-v1";
const SHELL = ["./", "index.html", "verifier.js", "verifier.css", "keys.json", "vendor/noble-ed25519-3.2.0.js"];

self.addEventListener("install", (event) => {
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(SHELL)).then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil(caches.keys()
    .then((names) => Promise.all(names.filter((n) => n !== CACHE).map((n) => caches.delete(n))))
    .then(() => self.clients.claim()));
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== "GET" || url.origin !== self.location.origin || url.pathname.endsWith("/status.json")) {
    return;
  }
  event.respondWith(fetch(request).then((response) => {
    if (response.ok) {
      const copy = response.clone();
      caches.open(CACHE).then((cache) => cache.put(request, copy));
    }
    return response;
  }).catch(() => caches.match(request, { ignoreSearch: true })
    .then((hit) => hit || (request.mode === "navigate" ? caches.match("./") : undefined))
    .then((hit) => hit || Response.error())));
});
