// A music player's playlist: tracks, shuffling, queue persistence.
import 'dart:async';
import 'dart:convert';
import 'dart:math' show Random;

/// The longest playlist the player keeps.
const int maxTracks = 500;

/// How long a crossfade between tracks lasts by default.
final Duration defaultFade = Duration(seconds: 3);

/// Marks an API that the remote control also calls.
class Remote {
  final String action;

  const Remote(this.action);
}

/// How the queue continues after its last track.
enum RepeatMode {
  off,
  all,
  one;

  /// The mode the repeat button switches to next.
  RepeatMode get next => RepeatMode.values[(index + 1) % RepeatMode.values.length];
}

/// One track of a playlist.
class Track {
  final String id;
  final String title;
  final String artist;
  final Duration length;

  /// A track with every field known.
  const Track(this.id, this.title, this.artist, this.length);

  /// A track read from the JSON the library service returns.
  factory Track.fromJson(Map<String, dynamic> json) {
    return Track(
      json['id'] as String,
      json['title'] as String,
      json['artist'] as String? ?? 'Unknown artist',
      Duration(milliseconds: json['ms'] as int),
    );
  }

  Map<String, dynamic> toJson() => {
        'id': id,
        'title': title,
        'artist': artist,
        'ms': length.inMilliseconds,
      };

  @override
  String toString() => '$artist - $title';
}

/// Something that is told when the current track changes.
abstract class PlaybackListener {
  void trackChanged(Track? previous, Track current);

  /// Called when the queue runs out; nothing by default.
  void queueEnded() {}
}

/// Keeps a history of what played, for the "recently played" screen.
mixin History on PlaybackListener {
  final List<Track> _played = [];

  List<Track> get recentlyPlayed => List.unmodifiable(_played.reversed);

  @override
  void trackChanged(Track? previous, Track current) {
    if (previous != null) {
      _played.add(previous);
    }
    if (_played.length > 50) {
      _played.removeAt(0);
    }
  }
}

/// A playlist with a cursor, a shuffle order and a repeat mode.
class Playlist {
  final String name;
  final List<Track> _tracks = [];
  List<int> _order = [];
  int _cursor = 0;
  RepeatMode repeat = RepeatMode.off;
  final _changes = StreamController<Track>.broadcast();

  Playlist(this.name);

  /// A playlist holding [tracks], in that order.
  Playlist.of(this.name, Iterable<Track> tracks) {
    addAll(tracks);
  }

  /// The tracks whose changes a listener can follow.
  Stream<Track> get changes => _changes.stream;

  int get length => _tracks.length;

  bool get isEmpty => _tracks.isEmpty;

  /// The track under the cursor, if any.
  Track? get current => isEmpty ? null : _tracks[_order[_cursor]];

  void add(Track track) {
    if (_tracks.length >= maxTracks) {
      throw StateError('playlist "$name" is full');
    }
    _tracks.add(track);
    _order.add(_tracks.length - 1);
  }

  void addAll(Iterable<Track> tracks) {
    for (final track in tracks) {
      add(track);
    }
  }

  /// Shuffles the play order, keeping the current track first.
  void shuffle({Random? random}) {
    final rng = random ?? Random();
    final playing = _order.isEmpty ? null : _order[_cursor];
    _order = List<int>.generate(_tracks.length, (i) => i)..shuffle(rng);
    if (playing != null) {
      _order.remove(playing);
      _order.insert(0, playing);
    }
    _cursor = 0;
  }

  /// Moves to the next track; false when the queue ended.
  @Remote('next')
  bool advance() {
    int wrapped(int at) => at % _tracks.length;

    if (isEmpty) {
      return false;
    }
    if (repeat == RepeatMode.one) {
      _changes.add(current!);
      return true;
    }
    if (_cursor + 1 >= _tracks.length && repeat == RepeatMode.off) {
      return false;
    }
    _cursor = wrapped(_cursor + 1);
    _changes.add(current!);
    return true;
  }

  /// The total length of the playlist.
  Duration totalLength() =>
      _tracks.fold(Duration.zero, (sum, track) => sum + track.length);

  @Deprecated('Use totalLength')
  int get seconds => totalLength().inSeconds;

  Future<void> close() => _changes.close();
}

/// Saving and loading a playlist as JSON.
extension PlaylistStorage on Playlist {
  String encode() => jsonEncode({
        'name': name,
        'tracks': _tracks.map((t) => t.toJson()).toList(),
      });

  /// Loads the tracks of [source] into this playlist.
  Future<int> load(Stream<String> source) async {
    var count = 0;
    await for (final line in source) {
      final decoded = jsonDecode(line) as Map<String, dynamic>;
      add(Track.fromJson(decoded));
      count++;
    }
    return count;
  }
}

/// Formats a duration as `m:ss`.
String formatLength(Duration length) {
  final minutes = length.inMinutes;
  final seconds = (length.inSeconds % 60).toString().padLeft(2, '0');
  return '$minutes:$seconds';
}

typedef TrackFilter = bool Function(Track track);

/// The tracks of [playlist] that [keep] accepts, as a new playlist.
Playlist filtered(Playlist playlist, TrackFilter keep, {String? name}) {
  final result = Playlist(name ?? '${playlist.name} (filtered)');
  for (final track in playlist._tracks.where(keep)) {
    result.add(track);
  }
  return result;
}
