; Inno Setup 6 script: the Windows installer of MotoDesk, over the PyInstaller bundle dist\motodesk\.
; Build steps: installer\README.md ("Windows"). From the repository root:
;   "C:\Program Files (x86)\Inno Setup 6\ISCC.exe" installer\windows\motodesk.iss
; Output: dist\MotoDesk-Setup-VERSION.exe
;
; Upgrades keep the data: the database, the backups, the configuration and the logs are in the
; user's folders (%LOCALAPPDATA%\SESTRAN Patrocinio\MotoDesk), never under {app}; installing a newer
; version over an older one replaces only the program (same AppId) and removes its stale files.

#define BundleDir SourcePath + "..\..\dist\motodesk"
#ifndef AppVersion
  #define AppVersion GetStringFileInfo(BundleDir + "\motodesk.exe", "ProductVersion")
#endif

[Setup]
AppId={{6D0F3C2B-8E1A-4C57-9B2D-5A7E4F1C9D30}
AppName=MotoDesk
AppVersion={#AppVersion}
AppVerName=MotoDesk {#AppVersion}
AppPublisher=SESTRAN – Prefeitura Municipal de Patrocínio-MG
DefaultDirName={autopf}\MotoDesk
DefaultGroupName=MotoDesk
DisableProgramGroupPage=yes
OutputDir={#SourcePath}..\..\dist
OutputBaseFilename=MotoDesk-Setup-{#AppVersion}
SetupIconFile={#SourcePath}..\..\build\pyinstaller\motodesk\icons\motodesk.ico
UninstallDisplayIcon={app}\motodesk.exe
Compression=lzma2/normal
SolidCompression=yes
WizardStyle=modern
ArchitecturesAllowed=x64compatible
ArchitecturesInstallIn64BitMode=x64compatible
PrivilegesRequired=admin
CloseApplications=yes
RestartApplications=no
ShowLanguageDialog=no

[Languages]
Name: "brazilianportuguese"; MessagesFile: "compiler:Languages\BrazilianPortuguese.isl"

[Tasks]
Name: "desktopicon"; Description: "Criar um atalho na área de trabalho"; GroupDescription: "Atalhos:"

[InstallDelete]
; Files of the previous version's bundle (never the data, which is not here).
Type: filesandordirs; Name: "{app}\_internal"

[Files]
Source: "{#BundleDir}\*"; DestDir: "{app}"; Flags: ignoreversion recursesubdirs createallsubdirs

[Icons]
Name: "{group}\MotoDesk"; Filename: "{app}\motodesk.exe"
Name: "{group}\Autoteste do MotoDesk"; Filename: "{cmd}"; Parameters: "/k ""{app}\motodesk-cli.exe"" --self-test"
Name: "{group}\Desinstalar o MotoDesk"; Filename: "{uninstallexe}"
Name: "{autodesktop}\MotoDesk"; Filename: "{app}\motodesk.exe"; Tasks: desktopicon

[Run]
Filename: "{app}\motodesk.exe"; Description: "Abrir o MotoDesk agora"; Flags: nowait postinstall skipifsilent
