// Returns nothing: a configuration error.
function FindProxyForURL(url, host) {
    if (host == "never") {
        return "DIRECT";
    }
}
