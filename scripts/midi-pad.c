// A JACK MIDI pad for scripts/callback-time.sh: a note-on of key 60 every 8 periods at the
// period's first frame, its note-off 4 periods later (as the plugins benchmark's pad), sent to
// every port named on the command line. SIGINT or SIGTERM closes its client: killed in the
// middle of a cycle instead, it left jackd2 waiting on it, and the next client to leave hung.
#include <jack/jack.h>
#include <jack/midiport.h>
#include <pthread.h>
#include <signal.h>

static jack_port_t *out;
static unsigned long period;

static int process(jack_nframes_t frames, void *unused) {
    (void)unused;
    void *buffer = jack_port_get_buffer(out, frames);
    jack_midi_clear_buffer(buffer);
    unsigned char on[3] = {0x90, 60, 100}, off[3] = {0x80, 60, 0};
    if (period % 8 == 0) jack_midi_event_write(buffer, 0, on, 3);
    if (period % 8 == 4) jack_midi_event_write(buffer, 0, off, 3);
    period++;
    return 0;
}

int main(int count, char **ports) {
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &stop, NULL);  // before libjack's threads start: they inherit it
    jack_client_t *client = jack_client_open("midi-pad", JackNullOption, NULL);
    if (!client) return 1;
    out = jack_port_register(client, "out", JACK_DEFAULT_MIDI_TYPE, JackPortIsOutput, 0);
    jack_set_process_callback(client, process, NULL);
    if (jack_activate(client) != 0) return 1;
    for (int index = 1; index < count; index++)
        if (jack_connect(client, "midi-pad:out", ports[index]) != 0) return 1;
    int received;
    sigwait(&stop, &received);
    jack_client_close(client);
    return 0;
}
