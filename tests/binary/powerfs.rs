//! A disk that can lose power, as a FUSE filesystem held in memory: every file's writes
//! are kept apart until the file is synced (`fsync`, `fdatasync`), and every directory's
//! entries until the directory is; a power cut drops everything never synced, as a drive
//! with a volatile write cache does (the method of ALICE and LazyFS). After a cut every
//! call fails, until the power comes back on what was synced.
//!
//! Files are opened for direct I/O and no attribute is cached, so that the kernel keeps
//! nothing of its own that could outlive a cut.

use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};
use std::path::Path;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, SystemTime};

use fuser::consts::FOPEN_DIRECT_IO;
use fuser::{
    FileAttr, FileType, Filesystem, MountOption, ReplyAttr, ReplyCreate, ReplyData, ReplyDirectory,
    ReplyEmpty, ReplyEntry, ReplyOpen, ReplyStatfs, ReplyWrite, Request, TimeOrNow,
};
use libc::{EEXIST, EIO, ENOENT, ENOTDIR, ENOTEMPTY};

const ROOT: u64 = fuser::FUSE_ROOT_ID;
/// Nothing is cached by the kernel: the disk may go back to an older state at any time.
const NO_CACHE: Duration = Duration::ZERO;

#[derive(Default)]
struct Node {
    dir: bool,
    data: Vec<u8>,
    synced_data: Vec<u8>,
    entries: BTreeMap<OsString, u64>,
    synced_entries: BTreeMap<OsString, u64>,
    mtime: Option<SystemTime>,
}

/// The disk's contents, shared between the filesystem's thread and the test.
#[derive(Default)]
pub struct Disk {
    /// By inode number less one.
    nodes: Vec<Node>,
    off: bool,
    /// A disk that says it synced and did not: for showing that a test can see a loss.
    lying: bool,
}

impl Disk {
    fn node(&mut self, ino: u64) -> Option<&mut Node> {
        self.nodes
            .get_mut(usize::try_from(ino).ok()?.checked_sub(1)?)
    }

    fn attr(&self, ino: u64) -> Option<FileAttr> {
        let node = self.nodes.get(usize::try_from(ino).ok()?.checked_sub(1)?)?;
        let time = node.mtime.unwrap_or(SystemTime::UNIX_EPOCH);
        let size = node.data.len() as u64;
        Some(FileAttr {
            ino,
            size,
            blocks: size.div_ceil(512),
            atime: time,
            mtime: time,
            ctime: time,
            crtime: time,
            kind: if node.dir {
                FileType::Directory
            } else {
                FileType::RegularFile
            },
            perm: if node.dir { 0o755 } else { 0o644 },
            nlink: 1,
            uid: 0,
            gid: 0,
            rdev: 0,
            blksize: 4096,
            flags: 0,
        })
    }

    fn child(&mut self, parent: u64, name: &OsStr) -> Result<u64, i32> {
        let node = self.node(parent).ok_or(ENOENT)?;
        node.entries.get(name).copied().ok_or(ENOENT)
    }

    /// A new node named `name` in `parent`.
    fn add(&mut self, parent: u64, name: &OsStr, dir: bool) -> Result<u64, i32> {
        let ino = self.nodes.len() as u64 + 1;
        let node = self.node(parent).ok_or(ENOENT)?;
        if !node.dir {
            return Err(ENOTDIR);
        }
        if node.entries.contains_key(name) {
            return Err(EEXIST);
        }
        node.entries.insert(name.to_owned(), ino);
        node.mtime = Some(SystemTime::now());
        self.nodes.push(Node {
            dir,
            mtime: Some(SystemTime::now()),
            ..Node::default()
        });
        Ok(ino)
    }

    fn remove(&mut self, parent: u64, name: &OsStr, dir: bool) -> Result<(), i32> {
        let ino = self.child(parent, name)?;
        let node = self.node(ino).ok_or(ENOENT)?;
        if dir && !node.entries.is_empty() {
            return Err(ENOTEMPTY);
        }
        let parent = self.node(parent).ok_or(ENOENT)?;
        parent.entries.remove(name);
        parent.mtime = Some(SystemTime::now());
        Ok(())
    }

    fn rename(&mut self, from: (u64, &OsStr), to: (u64, &OsStr)) -> Result<(), i32> {
        let ino = self.child(from.0, from.1)?;
        self.node(to.0).ok_or(ENOENT)?;
        let source = self.node(from.0).ok_or(ENOENT)?;
        source.entries.remove(from.1);
        source.mtime = Some(SystemTime::now());
        let target = self.node(to.0).ok_or(ENOENT)?;
        target.entries.insert(to.1.to_owned(), ino);
        target.mtime = Some(SystemTime::now());
        Ok(())
    }

    fn sync(&mut self, ino: u64) -> Result<(), i32> {
        let lying = self.lying;
        let node = self.node(ino).ok_or(ENOENT)?;
        if !lying {
            node.synced_data.clone_from(&node.data);
            node.synced_entries.clone_from(&node.entries);
        }
        Ok(())
    }
}

/// The disk, as the test holds it.
#[derive(Clone)]
pub struct PowerDisk(Arc<Mutex<Disk>>);

impl PowerDisk {
    pub fn new() -> PowerDisk {
        let root = Node {
            dir: true,
            mtime: Some(SystemTime::now()),
            ..Node::default()
        };
        PowerDisk(Arc::new(Mutex::new(Disk {
            nodes: vec![root],
            ..Disk::default()
        })))
    }

    fn lock(&self) -> MutexGuard<'_, Disk> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Mounts the disk at `at`; it is unmounted when the session is dropped.
    pub fn mount(&self, at: &Path) -> std::io::Result<fuser::BackgroundSession> {
        let options = [
            MountOption::FSName("powerfs".into()),
            MountOption::RW,
            MountOption::NoAtime,
        ];
        fuser::spawn_mount2(PowerFs(self.clone()), at, &options)
    }

    /// The power goes: everything never synced is lost, and every call fails until
    /// `power_on`.
    pub fn cut(&self) {
        self.lock().off = true;
    }

    /// The power comes back on what was synced.
    pub fn power_on(&self) {
        let mut disk = self.lock();
        for node in &mut disk.nodes {
            node.data.clone_from(&node.synced_data);
            node.entries.clone_from(&node.synced_entries);
        }
        disk.off = false;
    }

    /// From now on the disk says it synced, and does not.
    pub fn lie(&self) {
        self.lock().lying = true;
    }
}

struct PowerFs(PowerDisk);

impl PowerFs {
    /// The disk, or `EIO` while the power is off.
    fn disk(&self) -> Result<MutexGuard<'_, Disk>, i32> {
        let disk = self.0.lock();
        match disk.off {
            true => Err(EIO),
            false => Ok(disk),
        }
    }

    fn entry(&self, reply: ReplyEntry, found: Result<u64, i32>) {
        match found.and_then(|ino| self.disk()?.attr(ino).ok_or(ENOENT)) {
            Ok(attr) => reply.entry(&NO_CACHE, &attr, 0),
            Err(e) => reply.error(e),
        }
    }

    fn done(reply: ReplyEmpty, result: Result<(), i32>) {
        match result {
            Ok(()) => reply.ok(),
            Err(e) => reply.error(e),
        }
    }
}

impl Filesystem for PowerFs {
    fn lookup(&mut self, _req: &Request<'_>, parent: u64, name: &OsStr, reply: ReplyEntry) {
        let found = self.disk().and_then(|mut d| d.child(parent, name));
        self.entry(reply, found);
    }

    fn getattr(&mut self, _req: &Request<'_>, ino: u64, _fh: Option<u64>, reply: ReplyAttr) {
        match self.disk().and_then(|d| d.attr(ino).ok_or(ENOENT)) {
            Ok(attr) => reply.attr(&NO_CACHE, &attr),
            Err(e) => reply.error(e),
        }
    }

    fn setattr(
        &mut self,
        _req: &Request<'_>,
        ino: u64,
        _mode: Option<u32>,
        _uid: Option<u32>,
        _gid: Option<u32>,
        size: Option<u64>,
        _atime: Option<TimeOrNow>,
        _mtime: Option<TimeOrNow>,
        _ctime: Option<SystemTime>,
        _fh: Option<u64>,
        _crtime: Option<SystemTime>,
        _chgtime: Option<SystemTime>,
        _bkuptime: Option<SystemTime>,
        _flags: Option<u32>,
        reply: ReplyAttr,
    ) {
        let result = self.disk().and_then(|mut disk| {
            if let Some(size) = size {
                let node = disk.node(ino).ok_or(ENOENT)?;
                node.data.resize(size as usize, 0);
                node.mtime = Some(SystemTime::now());
            }
            disk.attr(ino).ok_or(ENOENT)
        });
        match result {
            Ok(attr) => reply.attr(&NO_CACHE, &attr),
            Err(e) => reply.error(e),
        }
    }

    fn mkdir(
        &mut self,
        _req: &Request<'_>,
        parent: u64,
        name: &OsStr,
        _mode: u32,
        _umask: u32,
        reply: ReplyEntry,
    ) {
        let made = self.disk().and_then(|mut d| d.add(parent, name, true));
        self.entry(reply, made);
    }

    fn create(
        &mut self,
        _req: &Request<'_>,
        parent: u64,
        name: &OsStr,
        _mode: u32,
        _umask: u32,
        _flags: i32,
        reply: ReplyCreate,
    ) {
        let made = self.disk().and_then(|mut disk| {
            let ino = disk.add(parent, name, false)?;
            disk.attr(ino).ok_or(ENOENT)
        });
        match made {
            Ok(attr) => reply.created(&NO_CACHE, &attr, 0, 0, FOPEN_DIRECT_IO),
            Err(e) => reply.error(e),
        }
    }

    fn open(&mut self, _req: &Request<'_>, ino: u64, _flags: i32, reply: ReplyOpen) {
        match self.disk().and_then(|d| d.attr(ino).ok_or(ENOENT)) {
            Ok(_) => reply.opened(0, FOPEN_DIRECT_IO),
            Err(e) => reply.error(e),
        }
    }

    fn read(
        &mut self,
        _req: &Request<'_>,
        ino: u64,
        _fh: u64,
        offset: i64,
        size: u32,
        _flags: i32,
        _lock_owner: Option<u64>,
        reply: ReplyData,
    ) {
        let read = self.disk().and_then(|mut disk| {
            let data = &disk.node(ino).ok_or(ENOENT)?.data;
            let start = (offset.max(0) as usize).min(data.len());
            let end = (start + size as usize).min(data.len());
            Ok(data[start..end].to_vec())
        });
        match read {
            Ok(bytes) => reply.data(&bytes),
            Err(e) => reply.error(e),
        }
    }

    fn write(
        &mut self,
        _req: &Request<'_>,
        ino: u64,
        _fh: u64,
        offset: i64,
        data: &[u8],
        _write_flags: u32,
        _flags: i32,
        _lock_owner: Option<u64>,
        reply: ReplyWrite,
    ) {
        let written = self.disk().and_then(|mut disk| {
            let node = disk.node(ino).ok_or(ENOENT)?;
            let start = offset.max(0) as usize;
            if node.data.len() < start + data.len() {
                node.data.resize(start + data.len(), 0);
            }
            node.data[start..start + data.len()].copy_from_slice(data);
            node.mtime = Some(SystemTime::now());
            Ok(data.len() as u32)
        });
        match written {
            Ok(n) => reply.written(n),
            Err(e) => reply.error(e),
        }
    }

    fn flush(&mut self, _req: &Request<'_>, _ino: u64, _fh: u64, _lo: u64, reply: ReplyEmpty) {
        Self::done(reply, self.disk().map(drop));
    }

    fn fsync(&mut self, _req: &Request<'_>, ino: u64, _fh: u64, _data: bool, reply: ReplyEmpty) {
        Self::done(reply, self.disk().and_then(|mut d| d.sync(ino)));
    }

    fn fsyncdir(&mut self, _req: &Request<'_>, ino: u64, _fh: u64, _d: bool, reply: ReplyEmpty) {
        Self::done(reply, self.disk().and_then(|mut d| d.sync(ino)));
    }

    fn unlink(&mut self, _req: &Request<'_>, parent: u64, name: &OsStr, reply: ReplyEmpty) {
        Self::done(
            reply,
            self.disk().and_then(|mut d| d.remove(parent, name, false)),
        );
    }

    fn rmdir(&mut self, _req: &Request<'_>, parent: u64, name: &OsStr, reply: ReplyEmpty) {
        Self::done(
            reply,
            self.disk().and_then(|mut d| d.remove(parent, name, true)),
        );
    }

    fn rename(
        &mut self,
        _req: &Request<'_>,
        parent: u64,
        name: &OsStr,
        newparent: u64,
        newname: &OsStr,
        _flags: u32,
        reply: ReplyEmpty,
    ) {
        let moved = self
            .disk()
            .and_then(|mut d| d.rename((parent, name), (newparent, newname)));
        Self::done(reply, moved);
    }

    fn readdir(
        &mut self,
        _req: &Request<'_>,
        ino: u64,
        _fh: u64,
        offset: i64,
        mut reply: ReplyDirectory,
    ) {
        let listing = self.disk().and_then(|mut disk| {
            let node = disk.node(ino).ok_or(ENOENT)?;
            let mut listing = vec![
                (ino, FileType::Directory, OsString::from(".")),
                (ROOT, FileType::Directory, OsString::from("..")),
            ];
            let entries: Vec<(OsString, u64)> =
                node.entries.iter().map(|(n, i)| (n.clone(), *i)).collect();
            for (name, child) in entries {
                let kind = disk.attr(child).map_or(FileType::RegularFile, |a| a.kind);
                listing.push((child, kind, name));
            }
            Ok(listing)
        });
        match listing {
            Ok(listing) => {
                for (i, (ino, kind, name)) in listing.into_iter().enumerate().skip(offset as usize)
                {
                    if reply.add(ino, (i + 1) as i64, kind, name) {
                        break;
                    }
                }
                reply.ok();
            }
            Err(e) => reply.error(e),
        }
    }

    fn statfs(&mut self, _req: &Request<'_>, _ino: u64, reply: ReplyStatfs) {
        // Room enough: this disk fails by losing power, not by filling up.
        reply.statfs(1 << 24, 1 << 24, 1 << 24, 1 << 20, 1 << 20, 4096, 255, 4096);
    }

    fn access(&mut self, _req: &Request<'_>, _ino: u64, _mask: i32, reply: ReplyEmpty) {
        reply.ok();
    }
}
