// Returns a proxy type the clients cannot use: a configuration error.
function FindProxyForURL(url, host) {
    return "SOCKS socks.site.example:1080; DIRECT";
}
