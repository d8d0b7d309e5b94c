#define _GNU_SOURCE
#include "CLAPHost.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

// A plugin's presets through CLAP's preset discovery: each provider the bundle's discovery
// factory offers is made with pulsejack's indexer, declares its locations (inside the plugin,
// or files and folders) and file types, and names the presets found there; those for the plugin
// asked about (or for no plugin in particular) are handed to the caller. Control thread.

enum { MAX_LOCATIONS = 64, MAX_TYPES = 32, NAME = 512 };

typedef struct {
    uint32_t kinds[MAX_LOCATIONS];
    char *locations[MAX_LOCATIONS];
    uint32_t location_count;
    char *extensions[MAX_TYPES];
    uint32_t type_count;
} Declared;

typedef struct {
    const char *plugin_id;
    PJClapPresetFound found;
    void *context;
    uint32_t kind;
    const char *location;
    char name[NAME], load_key[NAME];
    int pending, has_key, for_plugins, for_this_one;
    uint32_t count;
} Receiving;

static char *copy(const char *text) { return text ? strdup(text) : NULL; }

static bool declare_filetype(const clap_preset_discovery_indexer_t *indexer, const clap_preset_discovery_filetype_t *type) {
    Declared *declared = indexer->indexer_data;
    if (!type || declared->type_count == MAX_TYPES) return false;
    declared->extensions[declared->type_count++] = copy(type->file_extension ? type->file_extension : "");
    return true;
}

static bool declare_location(const clap_preset_discovery_indexer_t *indexer, const clap_preset_discovery_location_t *location) {
    Declared *declared = indexer->indexer_data;
    if (!location || declared->location_count == MAX_LOCATIONS) return false;
    declared->kinds[declared->location_count] = location->kind;
    declared->locations[declared->location_count++] = copy(location->location);
    return true;
}

static bool declare_soundpack(const clap_preset_discovery_indexer_t *indexer, const clap_preset_discovery_soundpack_t *pack) {
    (void)indexer; (void)pack;
    return true;
}

static const void *indexer_extension(const clap_preset_discovery_indexer_t *indexer, const char *id) {
    (void)indexer; (void)id;
    return NULL;
}

static void finish(Receiving *r) {
    if (r->pending && (!r->for_plugins || r->for_this_one)) {
        r->found(r->context, r->name, r->kind, r->location, r->has_key ? r->load_key : NULL);
        r->count++;
    }
    r->pending = 0;
}

static void on_error(const clap_preset_discovery_metadata_receiver_t *receiver, int32_t os_error, const char *message) {
    (void)receiver; (void)os_error; (void)message;
}

static bool begin_preset(const clap_preset_discovery_metadata_receiver_t *receiver, const char *name, const char *load_key) {
    Receiving *r = receiver->receiver_data;
    finish(r);
    snprintf(r->name, sizeof r->name, "%s", name ? name : "");
    r->has_key = load_key != NULL;
    snprintf(r->load_key, sizeof r->load_key, "%s", load_key ? load_key : "");
    r->pending = 1;
    r->for_plugins = 0;
    r->for_this_one = 0;
    return true;
}

static void add_plugin_id(const clap_preset_discovery_metadata_receiver_t *receiver, const clap_universal_plugin_id_t *id) {
    Receiving *r = receiver->receiver_data;
    if (!id) return;
    r->for_plugins = 1;
    if (id->abi && id->id && strcmp(id->abi, "clap") == 0 && strcmp(id->id, r->plugin_id) == 0) r->for_this_one = 1;
}

static void ignore_text(const clap_preset_discovery_metadata_receiver_t *receiver, const char *text) { (void)receiver; (void)text; }
static void ignore_flags(const clap_preset_discovery_metadata_receiver_t *receiver, uint32_t flags) { (void)receiver; (void)flags; }
static void ignore_times(const clap_preset_discovery_metadata_receiver_t *receiver, uint64_t a, uint64_t b) { (void)receiver; (void)a; (void)b; }
static void ignore_pair(const clap_preset_discovery_metadata_receiver_t *receiver, const char *a, const char *b) {
    (void)receiver; (void)a; (void)b;
}

static void read_metadata(const clap_preset_discovery_provider_t *provider, Receiving *r, uint32_t kind, const char *location) {
    const clap_preset_discovery_metadata_receiver_t receiver = {
        r, on_error, begin_preset, add_plugin_id, ignore_text, ignore_flags, ignore_text, ignore_text, ignore_times,
        ignore_text, ignore_pair};
    r->kind = kind;
    r->location = location;
    r->pending = 0;
    provider->get_metadata(provider, kind, location, &receiver);
    finish(r);
}

static int takes(const Declared *declared, const char *path) {
    if (declared->type_count == 0) return 1;
    const char *dot = strrchr(path, '.');
    for (uint32_t index = 0; index < declared->type_count; index++) {
        const char *wanted = declared->extensions[index];
        if (wanted[0] == 0 || (dot && strcmp(dot + 1, wanted) == 0)) return 1;
    }
    return 0;
}

/// A file location, or every file of a declared type under a folder (sorted, to any depth).
static void crawl(const clap_preset_discovery_provider_t *provider, Receiving *r, const Declared *declared, const char *path, int depth) {
    struct stat facts;
    if (depth > 8 || stat(path, &facts) != 0) return;
    if (!S_ISDIR(facts.st_mode)) {
        if (takes(declared, path)) read_metadata(provider, r, CLAP_PRESET_DISCOVERY_LOCATION_FILE, path);
        return;
    }
    struct dirent **entries;
    int count = scandir(path, &entries, NULL, alphasort);
    for (int index = 0; index < count; index++) {
        if (entries[index]->d_name[0] != '.') {
            char child[4096];
            snprintf(child, sizeof child, "%s/%s", path, entries[index]->d_name);
            crawl(provider, r, declared, child, depth + 1);
        }
        free(entries[index]);
    }
    if (count >= 0) free(entries);
}

int pj_clap_find_presets(const char *plugin_id, PJClapPresetFound found, void *context) {
    const clap_plugin_entry_t *entry = pj_clap_entry_for(plugin_id);
    if (!entry) return -1;
    const clap_preset_discovery_factory_t *factory = entry->get_factory(CLAP_PRESET_DISCOVERY_FACTORY_ID);
    if (!factory) factory = entry->get_factory(CLAP_PRESET_DISCOVERY_FACTORY_ID_COMPAT);
    if (!factory) return 0;
    Receiving r = {.plugin_id = plugin_id, .found = found, .context = context};
    uint32_t providers = factory->count(factory);
    for (uint32_t index = 0; index < providers; index++) {
        const clap_preset_discovery_provider_descriptor_t *descriptor = factory->get_descriptor(factory, index);
        if (!descriptor || !descriptor->id) continue;
        Declared declared = {0};
        clap_preset_discovery_indexer_t indexer = {{1, 2, 0}, "pulsejack", "pulsejack", "", "1.0", &declared, declare_filetype,
                                                   declare_location, declare_soundpack, indexer_extension};
        const clap_preset_discovery_provider_t *provider = factory->create(factory, &indexer, descriptor->id);
        if (provider && provider->init(provider)) {
            for (uint32_t at = 0; at < declared.location_count; at++) {
                if (declared.kinds[at] == CLAP_PRESET_DISCOVERY_LOCATION_PLUGIN) {
                    read_metadata(provider, &r, CLAP_PRESET_DISCOVERY_LOCATION_PLUGIN, declared.locations[at]);
                } else if (declared.locations[at]) {
                    crawl(provider, &r, &declared, declared.locations[at], 0);
                }
            }
        }
        if (provider) provider->destroy(provider);
        for (uint32_t at = 0; at < declared.location_count; at++) free(declared.locations[at]);
        for (uint32_t at = 0; at < declared.type_count; at++) free(declared.extensions[at]);
    }
    return (int)r.count;
}
