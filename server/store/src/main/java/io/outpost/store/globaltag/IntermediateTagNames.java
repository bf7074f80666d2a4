package io.outpost.store.globaltag;

import io.outpost.store.StoreException;

/**
 * The names of the folderset tags a global tag is built from. Tag names are unique in the whole database, so a
 * folderset tag between the root and a folder is named after the global tag and the folderset's path:
 * {@code GT} for the root itself, {@code GT.A.B} for the folderset {@code /A/B} (the path's '/' become '.').
 */
public final class IntermediateTagNames {
    private static final int MAX = 255;

    private IntermediateTagNames() {
    }

    /**
     * The tag that keeps a folder's HEAD when a global tag reading it at its HEAD is locked: named like a folderset
     * tag, {@code GT.A.B.c} for the folder {@code /A/B/c} (a folder and a folderset never share a path).
     */
    public static String forFolder(String globalTag, String folderPath) {
        return forFolderset(globalTag, folderPath);
    }

    public static String forFolderset(String globalTag, String foldersetPath) {
        if (foldersetPath.equals("/")) {
            return globalTag;
        }
        String name = globalTag + foldersetPath.replace('/', '.');
        if (name.length() > MAX) {
            throw StoreException.badArgument("the folderset tag name '" + name.substring(0, 40) + "…' for '"
                    + foldersetPath + "' would be over " + MAX + " characters; choose a shorter global tag name");
        }
        return name;
    }
}
