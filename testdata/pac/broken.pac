// Does not parse: a configuration error naming the file.
function FindProxyForURL(url, host) {
    return "DIRECT"
